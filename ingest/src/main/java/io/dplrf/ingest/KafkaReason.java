package io.dplrf.ingest;

/**
 * Kafka's reason for a failure, for a one-line error: its message, and the root cause's where that
 * says more. A TLS failure's message alone is often generic ("SSL handshake failed", "Failed to
 * process post-handshake messages"); its root cause names the TLS alert or the certificate path
 * that failed ("Received fatal alert: certificate_required", "PKIX path building failed: …").
 */
public final class KafkaReason {
  private KafkaReason() {}

  public static String of(Throwable e) {
    String top = String.valueOf(e.getMessage());
    Throwable root = e;
    for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 16; depth++) {
      root = root.getCause();
    }
    String deep = root.getMessage();
    return root == e || deep == null || top.contains(deep) ? top : top + " (" + deep + ")";
  }
}
