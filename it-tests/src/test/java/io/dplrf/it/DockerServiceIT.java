package io.dplrf.it;

/** The service scenarios against {@code apache/kafka} in Docker; skipped where Docker is missing. */
@KafkaSuite.InDocker
class DockerServiceIT extends ServiceScenarios {}
