package io.dplrf.it;

/** The crash-and-restart scenario against {@code apache/kafka} in Docker; skipped without Docker. */
@KafkaSuite.InDocker
class DockerCrashRestartIT extends CrashRestartScenarios {}
