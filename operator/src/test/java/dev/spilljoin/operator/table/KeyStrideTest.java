package dev.spilljoin.operator.table;

import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link KeyStride}'s divisibility test and exact quotients against {@code remainderUnsigned}/{@code divideUnsigned},
 * and its gcd against {@link BigInteger#gcd}, over strides of every shape (1, powers of two, odd, mixed, a day in
 * microseconds, near 2^63 and above as unsigned) and differences at random, on the stride and next to it. Seeded;
 * replay with {@code -Dseed=<seed>}.
 */
class KeyStrideTest {
    private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);

    private static BigInteger unsigned(long v) {
        BigInteger b = BigInteger.valueOf(v);
        return v < 0 ? b.add(TWO_TO_64) : b;
    }

    @Test
    void dividesExactlyTheMultiplesAndGivesTheirQuotients() {
        long seed = Seeds.logged("KeyStrideTest");
        SplittableRandom r = new SplittableRandom(seed);
        long[] strides = {1, 2, 3, 10, 64, 86_400_000_000L, 1L << 62, (1L << 62) + 1, Long.MAX_VALUE, -1L, -2L};
        for (int c = 0; c < 2_000; c++) {
            long stride = c < strides.length ? strides[c]
                    : r.nextBoolean() ? (1L + r.nextInt(1 << 20)) << r.nextInt(40) : r.nextLong() | 1;
            KeyStride step = KeyStride.of(stride);
            assertThat(step.stride()).isEqualTo(stride);
            for (int i = 0; i < 200; i++) {
                long quotient = r.nextInt(3) == 0 ? r.nextLong() : r.nextInt(1 << 20);
                long multiple = quotient * stride;
                long difference = switch (i % 4) {
                    case 0 -> multiple;
                    case 1 -> multiple + 1 + r.nextInt(8);
                    case 2 -> multiple - 1 - r.nextInt(8);
                    default -> r.nextLong();
                };
                String what = "seed=" + seed + " stride=" + Long.toUnsignedString(stride) + " difference="
                        + Long.toUnsignedString(difference);
                boolean divides = Long.remainderUnsigned(difference, stride) == 0;
                assertThat(step.divides(difference)).as(what).isEqualTo(divides);
                if (divides) {
                    assertThat(step.quotientOf(difference)).as(what)
                            .isEqualTo(Long.divideUnsigned(difference, stride));
                }
            }
        }
    }

    @Test
    void strideZeroStandsForOneKeyValue() {
        KeyStride none = KeyStride.of(0);
        assertThat(none.divides(0)).isTrue();
        assertThat(none.quotientOf(0)).isZero();
        for (long d : new long[] {1, 2, 64, -1, Long.MIN_VALUE}) {
            assertThat(none.divides(d)).as("%d", d).isFalse();
        }
        assertThat(KeyStride.ONE.divides(-1)).isTrue();
        assertThat(KeyStride.ONE.quotientOf(12345)).isEqualTo(12345);
    }

    @Test
    void gcdIsTheUnsignedGreatestCommonDivisor() {
        SplittableRandom r = new SplittableRandom(20261206);
        assertThat(KeyStride.gcd(0, 0)).isZero();
        assertThat(KeyStride.gcd(0, 10)).isEqualTo(10);
        assertThat(KeyStride.gcd(10, 0)).isEqualTo(10);
        for (int i = 0; i < 10_000; i++) {
            long common = 1 + r.nextInt(1000);
            long a = i % 3 == 0 ? r.nextLong() : common * r.nextInt(1 << 20);
            long b = i % 5 == 0 ? r.nextLong() : common * r.nextInt(1 << 20);
            assertThat(unsigned(KeyStride.gcd(a, b))).as("gcd(%s, %s)", Long.toUnsignedString(a),
                    Long.toUnsignedString(b)).isEqualTo(unsigned(a).gcd(unsigned(b)));
        }
    }
}
