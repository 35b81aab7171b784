package io.dplrf.it;

/** The failure scenarios against {@code apache/kafka} in Docker; skipped where Docker is missing. */
@KafkaSuite.InDocker
class DockerFailureIT extends FailureScenarios {}
