/**
 * The service's settings ({@link io.dplrf.deploy.config.ServiceConfig}): every setting of {@code
 * dplrf serve} (docs/user-guide.md, "Configuration"), read from a config file, {@code DPLRF_*}
 * environment variables and {@code --name value} flags (a flag wins over the environment, which
 * wins over the file), each value validated once with the project's message shape.
 *
 * <p>Nothing here starts anything: this package turns text into validated values and can describe
 * where each value came from. It must not import Kafka or HTTP types.
 */
package io.dplrf.deploy.config;
