package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ValueParserTest {
    private final ValueParser parser = new ValueParser();

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private boolean bigint(String s) {
        byte[] b = bytes("xx" + s + "yy");
        return parser.parseBigint(b, 2, b.length - 2);
    }

    private boolean dbl(String s) {
        byte[] b = bytes("x" + s + "y");
        return parser.parseDouble(b, 1, b.length - 1);
    }

    @Test
    void bigintAcceptsCanonicalIntegersWithinRange() {
        assertThat(bigint("0")).isTrue();
        assertThat(parser.longValue).isZero();
        assertThat(bigint("-42")).isTrue();
        assertThat(parser.longValue).isEqualTo(-42);
        assertThat(bigint("9223372036854775807")).isTrue();
        assertThat(parser.longValue).isEqualTo(Long.MAX_VALUE);
        assertThat(bigint("-9223372036854775808")).isTrue();
        assertThat(parser.longValue).isEqualTo(Long.MIN_VALUE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-", "007", "-01", "+1", "1.0", "1e3", " 1", "1 ", "9223372036854775808",
        "-9223372036854775809", "99999999999999999999", "12a"})
    void bigintRejects(String text) {
        assertThat(bigint(text)).isFalse();
    }

    @Test
    void integerIsBigintWithin32Bits() {
        byte[] max = bytes("2147483647");
        byte[] over = bytes("2147483648");
        assertThat(parser.parseInteger(max, 0, max.length)).isTrue();
        assertThat(parser.longValue).isEqualTo(Integer.MAX_VALUE);
        assertThat(parser.parseInteger(over, 0, over.length)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "1.5", "-0.25", ".5", "5.", "1e10", "1E-5", "-2.5e+3", "0.000123",
        "123456789012345678901234567890", "3.141592653589793238462643", "1e308", "4.9e-324", "1e-400",
        "99999999999999999999", "0.1", "2.2250738585072014E-308"})
    void doubleMatchesJavaParsing(String text) {
        assertThat(dbl(text)).isTrue();
        assertThat(parser.doubleValue).isEqualTo(Double.parseDouble(text));
    }

    @Test
    void doubleSpecialValuesAndSignedZero() {
        assertThat(dbl("NaN")).isTrue();
        assertThat(parser.doubleValue).isNaN();
        assertThat(dbl("Infinity")).isTrue();
        assertThat(parser.doubleValue).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(dbl("-Infinity")).isTrue();
        assertThat(parser.doubleValue).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(dbl("-0.0")).isTrue();
        assertThat(Double.doubleToRawLongBits(parser.doubleValue)).isEqualTo(Double.doubleToRawLongBits(-0.0));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-", ".", "e5", "1e", "1e+", "007.5", "00", "+1.5", "nan", "inf", "1.2.3", "1,5",
        "0x10", "1d", "1f", " 1.5", "--1"})
    void doubleRejects(String text) {
        assertThat(dbl(text)).isFalse();
    }

    @Test
    void randomDoublesRoundTripThroughTheirJavaRendering() {
        SplittableRandom random = SeededRandom.create("ValueParserTest");
        for (int i = 0; i < 20_000; i++) {
            double value = switch (i % 3) {
                case 0 -> Double.longBitsToDouble(random.nextLong());
                case 1 -> random.nextInt(2_000_000) / 1000.0 - 1000;
                default -> random.nextDouble() * Math.pow(10, random.nextInt(-30, 30));
            };
            if (Double.isNaN(value) || Double.isInfinite(value)) {
                continue;
            }
            String text = Double.toString(value).replace("E", "e");
            assertThat(dbl(text)).as(text).isTrue();
            assertThat(parser.doubleValue).as(text).isEqualTo(value);
        }
    }

    @Test
    void booleanAnyCase() {
        for (String t : new String[] {"true", "TRUE", "True", "tRuE"}) {
            byte[] b = bytes(t);
            assertThat(parser.parseBoolean(b, 0, b.length)).isTrue();
            assertThat(parser.booleanValue).isTrue();
        }
        byte[] f = bytes("FaLsE");
        assertThat(parser.parseBoolean(f, 0, f.length)).isTrue();
        assertThat(parser.booleanValue).isFalse();
        for (String t : new String[] {"t", "yes", "1", "truex", "fals"}) {
            byte[] b = bytes(t);
            assertThat(parser.parseBoolean(b, 0, b.length)).as(t).isFalse();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-0", "7", "-42", "9223372036854775808", "123456789012345678901234567890",
        "-99999999999999999999999"})
    void integerTextAcceptsIntegersOfAnyLength(String text) {
        byte[] b = bytes("x" + text + "y");
        assertThat(parser.parseIntegerText(b, 1, b.length - 1)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-", "007", "-01", "+1", "1.0", "1e3", " 1", "12a", "--1"})
    void integerTextRejects(String text) {
        byte[] b = bytes("x" + text + "y");
        assertThat(parser.parseIntegerText(b, 1, b.length - 1)).isFalse();
    }

    private String integralDigits(String text) {
        byte[] b = bytes("x" + text + "y");
        assertThat(parser.parseDouble(b, 1, b.length - 1)).as(text).isTrue();
        byte[] out = new byte[ValueParser.MAX_INTEGRAL_DIGITS];
        int length = parser.integralDigits(b, 1, b.length - 1, out);
        return length < 0 ? null : new String(out, 0, length, StandardCharsets.US_ASCII);
    }

    @Test
    void integralDigitsAreTheExactIntegerADecimalWrites() {
        assertThat(integralDigits("1.0")).isEqualTo("1");
        assertThat(integralDigits("1e0")).isEqualTo("1");
        assertThat(integralDigits("10e-1")).isEqualTo("1");
        assertThat(integralDigits("1.50e1")).isEqualTo("15");
        assertThat(integralDigits(".5e1")).isEqualTo("5");
        assertThat(integralDigits("5.")).isEqualTo("5");
        assertThat(integralDigits("100")).isEqualTo("100");
        assertThat(integralDigits("-2.5e3")).isEqualTo("-2500");
        assertThat(integralDigits("-0.0")).isEqualTo("0");
        assertThat(integralDigits("0e999999999999")).isEqualTo("0");
        assertThat(integralDigits("9007199254740993.0")).as("no double in between").isEqualTo("9007199254740993");
        assertThat(integralDigits("9.223372036854775807e18")).isEqualTo("9223372036854775807");
        assertThat(integralDigits("-9.223372036854775808E18")).isEqualTo("-9223372036854775808");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.5", "0.1", "1e-1", "NaN", "Infinity", "-Infinity", "9223372036854775808",
        "9.223372036854775808e18", "1e19", "1e400", "12345678901234567890.0", "1e99999999999999"})
    void integralDigitsRefuseFractionsSpecialsAndValuesBeyondBigint(String text) {
        assertThat(integralDigits(text)).isNull();
    }
}
