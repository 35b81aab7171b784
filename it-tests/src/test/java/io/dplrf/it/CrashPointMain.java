package io.dplrf.it;

import io.dplrf.sketch.files.WriteSteps;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code dplrf serve} ({@link io.dplrf.deploy.Main}) that stops at one step of the state files'
 * crash-safe writes, so that the test can {@code kill -9} it exactly there. The step is named by
 * the environment variable {@value #ENV}, e.g. {@code SYNCED node-1-0.sketch}: the first time
 * this process reaches that step ({@link WriteSteps.Step}) of the write of that file, it prints
 * {@value #MARKER} and the step, and the thread that reached it waits for the kill (other threads
 * go on, as they would in the instant before a real kill).
 */
public final class CrashPointMain {
  static final String ENV = "DPLRF_IT_CRASH_AT";
  static final String MARKER = "dplrf-it: at crash point ";

  private CrashPointMain() {}

  public static void main(String[] args) {
    String at = System.getenv(ENV);
    if (at != null && !at.isBlank()) {
      WriteSteps.install((step, file) -> {
        if ((step + " " + file.getFileName()).equals(at.strip())) {
          System.out.println(MARKER + at.strip());
          System.out.flush();
          while (true) {
            LockSupport.park(); // until SIGKILL
          }
        }
      });
    }
    io.dplrf.deploy.Main.main(args);
  }
}
