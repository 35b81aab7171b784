package io.dplrf.deploy.config;

/**
 * A configuration mistake: unknown setting, malformed line, invalid or missing value. The message
 * is one line naming the setting and where it came from (file line, environment variable or flag),
 * fit to print as is.
 */
public final class ConfigException extends IllegalArgumentException {
  public ConfigException(String message) {
    super(message);
  }
}
