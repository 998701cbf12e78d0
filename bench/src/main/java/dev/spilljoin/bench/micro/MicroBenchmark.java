package dev.spilljoin.bench.micro;

import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The run settings every microbenchmark of this package inherits (JMH's {@code @Fork}, {@code @Warmup} and
 * {@code @Measurement} are {@code @Inherited}): one fork started with the JVM flags Chronicle Bytes needs on Java 17
 * (the parent pom's {@code chronicle.jvm.flags}; without them the first mapped spill window fails), and short
 * iterations, since the machine is shared. Command-line options ({@code -f}, {@code -wi}, {@code -i}, {@code -w},
 * {@code -r}) override these.
 */
@Fork(value = 1, jvmArgsAppend = {
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "-Dchronicle.analytics.disable=true",
        "-Dchronicle.announcer.disable=true",
        "-Ddisable.perf.info=true",
        "-Dbackground.releaser=false"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public abstract class MicroBenchmark {
}
