package io.dplrf.it;

import java.lang.annotation.Annotation;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * One Kafka cluster per test suite, not per test: {@code @ExtendWith(KafkaSuite.class)} on a test
 * class makes {@link KafkaEnvironment} parameters of its test and lifecycle methods resolve to a
 * cluster that is started by the first class needing it and kept in the root (engine-level)
 * extension store, which closes it once all tests of the run are done.
 *
 * <p>By default that is the embedded broker ({@link EmbeddedKafkaEnvironment}), which needs nothing
 * but the Maven Central jars. A class annotated {@link InDocker} gets {@code apache/kafka} in
 * Docker instead, and is skipped (not failed) when Docker is not available. A class annotated
 * {@link OnKafka3} gets a Kafka 3.x broker run from its Maven Central jars ({@link
 * Kafka3Environment}), which needs nothing but the build either.
 *
 * <pre>{@code
 * @ExtendWith(KafkaSuite.class)
 * class IngestIT {
 *   @Test void updates_reachTheStore(KafkaEnvironment kafka) { kafka.createTopic("in", 3); ... }
 * }
 * }</pre>
 */
public final class KafkaSuite implements ExecutionCondition, BeforeAllCallback, ParameterResolver {

  /** Run the annotated class against Testcontainers' Kafka; skipped without Docker. */
  @Target(ElementType.TYPE)
  @Retention(RetentionPolicy.RUNTIME)
  @Inherited
  public @interface InDocker {}

  /** Run the annotated class against a Kafka 3.x broker ({@link Kafka3Environment}). */
  @Target(ElementType.TYPE)
  @Retention(RetentionPolicy.RUNTIME)
  @Inherited
  public @interface OnKafka3 {}

  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(KafkaSuite.class);

  /** Disables (reports as skipped) {@link InDocker} classes where Docker is not available. */
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    if (inDocker(context) && !TestcontainersKafkaEnvironment.dockerAvailable()) {
      return ConditionEvaluationResult.disabled("Docker is not available: Testcontainers Kafka skipped");
    }
    return ConditionEvaluationResult.enabled("Kafka environment available");
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    environment(context); // start (or reuse) before the first test, not inside its timing
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == KafkaEnvironment.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return environment(context);
  }

  /** The suite's cluster of the kind the test class asks for, started on first use. */
  static KafkaEnvironment environment(ExtensionContext context) {
    ExtensionContext.Store store = context.getRoot().getStore(NAMESPACE);
    // Values that are AutoCloseable are closed when the root context closes (JUnit 5.13+).
    if (inDocker(context)) {
      return store.getOrComputeIfAbsent(TestcontainersKafkaEnvironment.class,
          k -> TestcontainersKafkaEnvironment.start(), TestcontainersKafkaEnvironment.class);
    }
    if (annotated(context, OnKafka3.class)) {
      return store.getOrComputeIfAbsent(Kafka3Environment.class,
          k -> Kafka3Environment.start(), Kafka3Environment.class);
    }
    return store.getOrComputeIfAbsent(EmbeddedKafkaEnvironment.class,
        k -> EmbeddedKafkaEnvironment.start(), EmbeddedKafkaEnvironment.class);
  }

  private static boolean inDocker(ExtensionContext context) {
    return annotated(context, InDocker.class);
  }

  private static boolean annotated(ExtensionContext context, Class<? extends Annotation> kind) {
    return context.getTestClass()
        .map(c -> AnnotationSupport.isAnnotated(c, kind))
        .orElse(false);
  }
}
