package io.dplrf.deploy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServeCommandTest {

  @Test
  void busyEmbeddedKafkaPort_isOneLineNamingTheFlag_withoutStackTraces(@TempDir Path dir)
      throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      CliRun r = CliRun.of("serve", "--rows", "10", "--cols", "8", "--rank", "2", "--epsilon", "1",
          "--delta", "1e-6", "--epochs", "4", "--epoch-updates", "10",
          "--state-dir", dir.resolve("state").toString(),
          "--embedded-kafka-port", "" + port, "--http-port", "0", "--operator-port", "0");
      assertEquals(1, r.code(), r.toString());
      assertEquals(1, r.errLines().length, r.toString());
      String line = r.errLines()[0];
      assertTrue(line.startsWith("dplrf serve: cannot listen on 127.0.0.1:" + port
          + " (--embedded-kafka-port)"), line);
      assertTrue(line.contains("choose another port with --embedded-kafka-port"), line);
      assertFalse(r.log().contains("Exception") || r.log().contains("\tat "),
          "no stack trace:\n" + r.log());
    }
  }

  @Test
  void help_listsEverySettingWithItsDefault() {
    CliRun r = CliRun.of("serve", "--help");
    assertEquals(0, r.code(), r.toString());
    for (String name : io.dplrf.deploy.config.ServiceConfig.NAMES) {
      assertTrue(r.out().contains("\n  " + name + " "), name + " in\n" + r.out());
    }
    assertTrue(r.out().matches("(?s).*\n  http-port +8080 +the public API.*"), r.out());
  }

  @Test
  void misspellings_getTheClosestName() {
    CliRun option = CliRun.of("factorize", "--rnak", "3");
    assertEquals(2, option.code(), option.toString());
    assertEquals("dplrf factorize: unknown option --rnak (did you mean --rank?)",
        option.err().strip());
    CliRun setting = CliRun.of("serve", "--epoch-update", "10");
    assertEquals(2, setting.code(), setting.toString());
    assertTrue(setting.err().contains("unknown setting in flag --epoch-update (did you mean"
        + " --epoch-updates?)"), setting.toString());
    CliRun command = CliRun.of("serv");
    assertEquals(2, command.code(), command.toString());
    assertTrue(command.err().startsWith("dplrf: unknown command 'serv' (did you mean serve?)"),
        command.toString());
  }
}
