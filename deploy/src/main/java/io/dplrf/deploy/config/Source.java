package io.dplrf.deploy.config;

/** Where a setting's value came from, in increasing precedence (default < file < env < flag). */
public enum Source {
  DEFAULT("default"), FILE("file"), ENV("env"), FLAG("flag");

  private final String label;

  Source(String label) {
    this.label = label;
  }

  @Override
  public String toString() {
    return label;
  }
}
