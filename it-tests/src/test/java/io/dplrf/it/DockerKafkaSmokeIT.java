package io.dplrf.it;

/**
 * The smoke scenarios against {@code apache/kafka} in Docker (Testcontainers); skipped where Docker
 * is missing. Not named {@code Test*}: surefire would pick that up as a unit test.
 */
@KafkaSuite.InDocker
class DockerKafkaSmokeIT extends KafkaSmokeScenarios {}
