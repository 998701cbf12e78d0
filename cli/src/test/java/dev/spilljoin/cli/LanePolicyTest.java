package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LanePolicyTest {
    private static final long SECOND = 1_000_000_000L;

    private long cpu;
    private long wall;

    @Test
    void alwaysRunsTheLanesFromTheFirstRowGroup() {
        LanePolicy policy = LanePolicy.always();
        assertThat(policy.lanesForNextRowGroup()).isTrue();
        assertThat(policy.lanesForNextRowGroup()).isTrue();
    }

    /** On 2 cores: the first row group is unmeasured; busy row groups keep them off; one idle core turns them on. */
    @Test
    void lanesStartAfterARowGroupWithACoreIdleAndStayOn() {
        LanePolicy policy = LanePolicy.onceACoreIdles(2, () -> cpu, () -> wall);
        assertThat(policy.lanesForNextRowGroup()).as("first row group: nothing measured yet").isFalse();
        elapse(SECOND, SECOND * 19 / 10);
        assertThat(policy.lanesForNextRowGroup()).as("0.1 core idle").isFalse();
        elapse(SECOND, SECOND + 1);
        assertThat(policy.lanesForNextRowGroup()).as("just under a core idle").isFalse();
        elapse(SECOND, SECOND);
        assertThat(policy.lanesForNextRowGroup()).as("a core idle").isTrue();
        elapse(SECOND, 2 * SECOND);
        assertThat(policy.lanesForNextRowGroup()).as("every core busy again: lanes stay on").isTrue();
    }

    /** Each row group is measured on its own: an idle stretch before the last question does not count twice. */
    @Test
    void eachRowGroupIsMeasuredFromTheQuestionBeforeIt() {
        LanePolicy policy = LanePolicy.onceACoreIdles(4, () -> cpu, () -> wall);
        policy.lanesForNextRowGroup();
        elapse(SECOND, 3 * SECOND + SECOND / 2);
        assertThat(policy.lanesForNextRowGroup()).as("half a core idle of 4").isFalse();
        elapse(SECOND, 3 * SECOND);
        assertThat(policy.lanesForNextRowGroup()).as("one core idle of 4").isTrue();
    }

    /** Row groups shorter than the least span are judged together: a CPU clock tick cannot pass for an idle core. */
    @Test
    void shortRowGroupsAreMeasuredTogether() {
        long tick = 10_000_000L;
        LanePolicy policy = LanePolicy.onceACoreIdles(2, () -> cpu, () -> wall);
        policy.lanesForNextRowGroup();
        elapse(2 * tick, 0); // two busy cores, but the CPU clock has not ticked yet
        assertThat(policy.lanesForNextRowGroup()).as("20 ms: too short to judge").isFalse();
        elapse(LanePolicy.MIN_MEASURED_NANOS, 2 * LanePolicy.MIN_MEASURED_NANOS);
        assertThat(policy.lanesForNextRowGroup()).as("120 ms, 0.33 core idle over the two").isFalse();
        elapse(LanePolicy.MIN_MEASURED_NANOS, 0);
        assertThat(policy.lanesForNextRowGroup()).as("100 ms with both cores idle").isTrue();
    }

    @Test
    void anUnknownCpuTimeRunsTheLanesAsBefore() {
        LanePolicy policy = LanePolicy.onceACoreIdles(2, () -> -1, () -> wall);
        assertThat(policy.lanesForNextRowGroup()).isTrue();
    }

    @Test
    void theProcessCpuTimeOfThisPlatformIsReadable() {
        LanePolicy policy = LanePolicy.onceACoreIdles(Runtime.getRuntime().availableProcessors());
        // the first question only starts the measurement: with the CPU time known, the lanes wait for it
        assertThat(policy.lanesForNextRowGroup()).as("CPU time known on this platform").isFalse();
    }

    private void elapse(long wallNanos, long cpuNanos) {
        wall += wallNanos;
        cpu += cpuNanos;
    }
}
