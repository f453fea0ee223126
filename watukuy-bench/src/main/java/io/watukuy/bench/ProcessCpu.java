package io.watukuy.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * The CPU time of this process, every thread included: what a phase costs the machine beside how
 * long it took, so that a peer run in another JVM (bench/camel) can be compared per CPU second.
 */
final class ProcessCpu {
  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private ProcessCpu() {}

  /** The process's CPU time so far, in nanoseconds; -1 where the JVM cannot tell. */
  static long nanos() {
    return OS.getProcessCpuTime();
  }
}
