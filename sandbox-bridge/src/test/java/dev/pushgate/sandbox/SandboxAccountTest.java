package dev.pushgate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SandboxAccountTest {
  private static final String PASSWD = "root:x:0:0:root:/root:/bin/bash\n"
      + "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin";
  private static final String GROUP = "root:x:0:\nnogroup:x:65534:\n";

  @Test
  void aUserIdOfTheLaunchsOwnIsAddedAsAgentWithTheRunsHome() {
    SandboxAccount a = SandboxAccount.of(new SandboxUser(2115082118, 2115082118), "/root",
        PASSWD, GROUP);
    assertThat(a.name()).isEqualTo("agent");
    assertThat(a.passwd()).isEqualTo(PASSWD + "\n"
        + "agent:x:2115082118:2115082118:pushgate sandbox:/root:/bin/sh\n");
    assertThat(a.group()).isEqualTo(GROUP + "agent:x:2115082118:\n");
  }

  @Test
  void aUserTheHostKnowsKeepsItsNameAndNothingIsAdded() {
    SandboxAccount a = SandboxAccount.of(SandboxUser.NOBODY, "/root", PASSWD, GROUP);
    assertThat(a.name()).isEqualTo("nobody");
    assertThat(a.passwd()).isEqualTo(PASSWD + "\n");
    assertThat(a.group()).isEqualTo(GROUP);
  }

  @Test
  void aHostAccountNamedAgentIsNeverShadowed() {
    SandboxAccount a = SandboxAccount.of(new SandboxUser(2100000001, 2100000001), null,
        PASSWD + "\nagent:x:1000:1000::/home/agent:/bin/sh\n", GROUP + "agent:x:1000:\n");
    assertThat(a.name()).isEqualTo("agent-2100000001");
    assertThat(a.passwd()).endsWith("agent-2100000001:x:2100000001:2100000001:pushgate sandbox:/:/bin/sh\n");
    assertThat(a.group()).endsWith("agent-2100000001:x:2100000001:\n");
  }
}
