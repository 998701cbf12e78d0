package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DECIMAL keys join by value whatever their physical type and encoding ({@link ParquetDecimal}), end to end
 * ({@link Main#run}), on files written with parquet-java's own column writers: BINARY values with sign bytes in
 * front (0x01 and 0x0001, -1 as 0xFF and 0xFFFF), FIXED_LEN_BYTE_ARRAY of any width, INT32 and INT64, on the two
 * sides and in the part files of one input, dictionary- and plain-encoded; a CSV key against a DECIMAL in bytes
 * (of up to 18 digits read as a long, of up to 38 as bytes: text parsed to the value BigInteger gives).
 * The expected rows are the join of the values (BigInteger equality) written as {@link BigDecimal#toPlainString};
 * Parquet output keeps each key's physical and logical type and its values. Random values: the seed is printed,
 * replay with {@code -Dseed=}.
 */
class ParquetDecimalKeysTest {
    @TempDir
    Path dir;
    /** The last join's run. */
    private CapturedRun run;

    /** Joins {@code left} and {@code right} on {@code on}; the exit code. */
    private int join(Path left, Path right, String on, String... extra) {
        run = CapturedRun.join(dir, left, right, on, extra);
        return run.code();
    }

    /** A DECIMAL(precision, scale) column {@code name} stored as {@code physical} ({@code length}: a fixed width). */
    private static PrimitiveType decimal(String name, PrimitiveTypeName physical, int length, int precision,
                                         int scale) {
        Types.PrimitiveBuilder<PrimitiveType> type = Types.optional(physical);
        if (physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
            type = type.length(length);
        }
        return type.as(LogicalTypeAnnotation.decimalType(scale, precision)).named(name);
    }

    private static MessageType schema(PrimitiveType key, String id) {
        return new MessageType("m", key, Types.optional(PrimitiveTypeName.INT64).named(id));
    }

    /** {@code value} stored as {@code type} stores it, with {@code pad} sign bytes more in front for BINARY. */
    private static Object stored(BigInteger value, PrimitiveType type, int pad) {
        return switch (type.getPrimitiveTypeName()) {
            case INT32 -> value.intValueExact();
            case INT64 -> value.longValueExact();
            case FIXED_LEN_BYTE_ARRAY -> twosComplement(value, type.getTypeLength());
            default -> twosComplement(value, value.toByteArray().length + pad);
        };
    }

    /** {@code value} as {@code bytes} bytes of big-endian two's complement, the sign repeated in front. */
    static byte[] twosComplement(BigInteger value, int bytes) {
        byte[] minimal = value.toByteArray();
        byte[] out = new byte[bytes];
        Arrays.fill(out, 0, bytes - minimal.length, (byte) (value.signum() < 0 ? -1 : 0));
        System.arraycopy(minimal, 0, out, bytes - minimal.length, minimal.length);
        return out;
    }

    /**
     * Held as longs (10 digits) and as minimal bytes (25), from dictionary-encoded and plain pages (200 rows of a
     * value that joins nothing on each side, so that parquet-java keeps its dictionary).
     */
    @ParameterizedTest(name = "DECIMAL({0},2)")
    @ValueSource(ints = {10, 25})
    void binaryDecimalsWithSignBytesInFrontJoinTheirMinimalEncodings(int precision) throws IOException {
        PrimitiveType binary = decimal("lk", PrimitiveTypeName.BINARY, 0, precision, 2);
        byte[][] left = {{1}, {0, 1}, {0, 0, 0, 1}, {-1}, {-1, -1}, {-1, -1, -1, -1}, {0, -128}, {0, 0, -128},
            {-1, -128}, {-1, -1, -128}, {0}, {0, 0}, {}};
        Object[][] leftRows = new Object[left.length + 200][];
        for (int i = 0; i < leftRows.length; i++) {
            leftRows[i] = new Object[] {i < left.length ? left[i] : new byte[] {0x7f}, (long) i};
        }
        Object[][] rightRows = new Object[205][];
        byte[][] right = {{1}, {-1}, {0, -128}, {-128}, {0}};
        for (int i = 0; i < rightRows.length; i++) {
            rightRows[i] = new Object[] {i < right.length ? right[i] : new byte[] {0x7e}, i + 1L};
        }
        for (boolean dictionary : new boolean[] {true, false}) {
            Path l = ParquetTestFiles.writeWithParquetJava(dir.resolve("l" + dictionary + ".parquet"),
                    schema(binary, "i"), dictionary, leftRows);
            Path r = ParquetTestFiles.writeWithParquetJava(dir.resolve("r" + dictionary + ".parquet"),
                    schema(decimal("rk", PrimitiveTypeName.BINARY, 0, precision, 2), "j"), dictionary, rightRows);
            assertThat(join(l, r, "lk=rk")).as(run.err()).isZero();
            assertThat(run.sortedRows()).as("dictionary " + dictionary).containsExactly(
                    "-0.01,3,-0.01,2", "-0.01,4,-0.01,2", "-0.01,5,-0.01,2", "-1.28,8,-1.28,4", "-1.28,9,-1.28,4",
                    "0.00,10,0.00,5", "0.00,11,0.00,5", "0.00,12,0.00,5", "0.01,0,0.01,1", "0.01,1,0.01,1",
                    "0.01,2,0.01,1", "1.28,6,1.28,3", "1.28,7,1.28,3");
        }
    }

    /**
     * Random DECIMAL(p, 2) values (p = 10: held as longs; p = 25: held as minimal bytes) on two sides stored in
     * every physical type a DECIMAL of p digits may have, each row's own BINARY padding, the left side in two part
     * files of physical types drawn for each of a few rounds: the join is the values' join, in CSV and in Parquet
     * output.
     */
    @ParameterizedTest(name = "DECIMAL({0},2)")
    @ValueSource(ints = {10, 25})
    void decimalsOfOneTypeJoinByValueWhateverTheirPhysicalTypesOnBothSidesAndInPartFiles(int precision)
            throws IOException {
        SplittableRandom random = SeededRandom.create("decimalsJoinByValue(" + precision + ")");
        for (int round = 0; round < 4; round++) {
            joinRound(precision, random, Files.createDirectory(dir.resolve("round" + round)));
        }
    }

    private void joinRound(int precision, SplittableRandom random, Path roundDir) throws IOException {
        int min = ParquetDecimal.maxBytes(precision);
        List<PrimitiveType> kinds = new ArrayList<>(List.of(
                decimal("k", PrimitiveTypeName.BINARY, 0, precision, 2),
                decimal("k", PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, min, precision, 2),
                decimal("k", PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, min + 3, precision, 2)));
        if (precision <= 18) {
            kinds.add(decimal("k", PrimitiveTypeName.INT64, 0, precision, 2));
        }
        BigInteger limit = BigInteger.TEN.pow(precision);
        BigInteger[] domain = new BigInteger[40];
        for (int d = 0; d < domain.length; d++) {
            BigInteger magnitude = d < 8 ? BigInteger.valueOf(new long[] {0, 1, 127, 128, 255, 256, 32_767,
                32_768}[d]) : new BigInteger(precision * 3, new java.util.Random(random.nextLong())).mod(limit);
            domain[d] = random.nextBoolean() ? magnitude.negate() : magnitude;
        }
        BigInteger[] leftValues = draw(random, domain, 120);
        BigInteger[] rightValues = draw(random, domain, 80);
        PrimitiveType leftFirst = kinds.get(random.nextInt(kinds.size()));
        PrimitiveType leftSecond = kinds.get(random.nextInt(kinds.size()));
        PrimitiveType rightType = kinds.get(random.nextInt(kinds.size()));
        Path parts = roundDir.resolve("left");
        write(parts.resolve("part-0.parquet"), leftFirst, "lk", "i", leftValues, 0, 60, random);
        write(parts.resolve("part-1.parquet"), leftSecond, "lk", "i", leftValues, 60, 120, random);
        Path right = write(roundDir.resolve("right.parquet"), rightType, "rk", "j", rightValues, 0, 80, random);
        String described = leftFirst + " and " + leftSecond + " with " + rightType;

        List<String> expected = new ArrayList<>();
        for (int i = 0; i < leftValues.length; i++) {
            for (int j = 0; j < rightValues.length; j++) {
                if (leftValues[i] != null && leftValues[i].equals(rightValues[j])) {
                    String text = new BigDecimal(leftValues[i], 2).toPlainString();
                    expected.add(text + "," + i + "," + text + "," + j);
                }
            }
        }
        expected.sort(null);
        assertThat(expected).as("the domain makes matches").isNotEmpty();

        assertThat(join(parts, right, "lk=rk")).as(run.err()).isZero();
        assertThat(run.sortedRows()).as(described).isEqualTo(expected);

        Path parquet = roundDir.resolve("out.parquet");
        assertThat(join(parts, right, "lk=rk", "--output", parquet.toString())).as(run.err()).isZero();
        MessageType written = footerSchema(parquet);
        assertThat(written.getType("lk").asPrimitiveType().getPrimitiveTypeName()).as("the left key's own type")
                .isEqualTo(leftFirst.getPrimitiveTypeName());
        assertThat(written.getType("rk").asPrimitiveType().getPrimitiveTypeName()).as("the right key's own type")
                .isEqualTo(rightType.getPrimitiveTypeName());
        assertThat(written.getType("lk").getLogicalTypeAnnotation())
                .isEqualTo(LogicalTypeAnnotation.decimalType(2, precision));
        assertThat(join(parquet, parquet, "i=i", "--type", "semi")).as(run.err()).isZero();
        assertThat(run.sortedRows()).as("the Parquet output read back").isEqualTo(expected);
    }

    private static BigInteger[] draw(SplittableRandom random, BigInteger[] domain, int n) {
        BigInteger[] values = new BigInteger[n];
        for (int i = 0; i < n; i++) {
            values[i] = random.nextInt(10) == 0 ? null : domain[random.nextInt(domain.length)];
        }
        return values;
    }

    /** Rows {@code from .. to-1} of {@code values} as key {@code key} of {@code type} and their index as {@code id}. */
    private static Path write(Path file, PrimitiveType type, String key, String id, BigInteger[] values, int from,
                              int to, SplittableRandom random) throws IOException {
        PrimitiveType named = Types.optional(type.getPrimitiveTypeName()).length(type.getTypeLength())
                .as(type.getLogicalTypeAnnotation()).named(key);
        Object[][] rows = new Object[to - from][];
        for (int i = from; i < to; i++) {
            rows[i - from] = new Object[] {values[i] == null ? null : stored(values[i], named, random.nextInt(4)),
                (long) i};
        }
        return ParquetTestFiles.writeWithParquetJava(file, schema(named, id), random.nextBoolean(), rows);
    }

    private static MessageType footerSchema(Path file) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file),
                ParquetInput.readOptions())) {
            return reader.getFooter().getFileMetaData().getSchema();
        }
    }

    @Test
    void aCsvKeyPairedWithADecimalInBytesIsReadAsThatDecimalAndWrittenAsIt() throws IOException {
        Path parquet = ParquetTestFiles.writeWithParquetJava(dir.resolve("p.parquet"),
                schema(decimal("pk", PrimitiveTypeName.BINARY, 0, 12, 2), "j"), false,
                new Object[] {new byte[] {0, 0, 5}, 0L}, new Object[] {new byte[] {-1, -1, -6}, 1L},
                new Object[] {new byte[] {1, -12}, 2L});
        Path csv = CsvTestFiles.write(dir, "c.csv", "ck,x\n0.05,a\n-0.06,b\n5,c\n5.00,d\n0.050,e\n");
        assertThat(join(csv, parquet, "ck=pk")).as(run.err()).isZero();
        assertThat(run.sortedRows()).containsExactly("-0.06,b,-0.06,1", "0.05,a,0.05,0", "0.05,e,0.05,0",
                "5.00,c,5.00,2", "5.00,d,5.00,2");

        Path written = dir.resolve("out.parquet");
        assertThat(join(csv, parquet, "ck=pk", "--output", written.toString())).as(run.err()).isZero();
        PrimitiveType ck = footerSchema(written).getType("ck").asPrimitiveType();
        assertThat(ck.getPrimitiveTypeName()).as("the CSV key written as its partner's type")
                .isEqualTo(PrimitiveTypeName.BINARY);
        assertThat(ck.getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.decimalType(2, 12));
        assertThat(join(written, written, "x=x", "--type", "semi")).as(run.err()).isZero();
        assertThat(run.sortedRows()).as("the Parquet output read back").containsExactly("-0.06,b,-0.06,1",
                "0.05,a,0.05,0", "0.05,e,0.05,0", "5.00,c,5.00,2", "5.00,d,5.00,2");
    }

    /**
     * Text read as a DECIMAL of more than 18 digits in bytes is its unscaled value's minimal two's complement, the
     * same as BigInteger's, for random decimals of up to 38 digits in every spelling the grammar allows and for
     * values at the 128-bit arithmetic's edges (2^64 and its multiples, whose negation carries into the high half;
     * prefixes whose low half times ten ends just below 2^64, so that the last digit carries); text with more digits
     * than the precision or the scale allows is refused.
     */
    @Test
    void textReadAsAWideDecimalIsItsMinimalTwosComplement() {
        SplittableRandom random = SeededRandom.create("textReadAsAWideDecimal");
        BigInteger twoTo63 = BigInteger.ONE.shiftLeft(63);
        BigInteger carrying = twoTo63.subtract(BigInteger.ONE).multiply(BigInteger.valueOf(5).modInverse(twoTo63))
                .mod(twoTo63); // times ten: 2^64 - 2 in the low half
        List<BigInteger> edges = new ArrayList<>(List.of(BigInteger.TEN.pow(38).subtract(BigInteger.ONE),
                BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE), twoTo63));
        for (int k = 1; k < 6; k++) {
            edges.add(BigInteger.ONE.shiftLeft(64).multiply(BigInteger.valueOf(k)));
            edges.add(carrying.add(twoTo63.multiply(BigInteger.valueOf(k))).multiply(BigInteger.TEN).add(
                    BigInteger.valueOf(k + 3)));
        }
        for (int round = 0; round < 20_000; round++) {
            boolean edge = round < 2 * edges.size(); // each edge value with each sign
            int precision = edge ? 38 : 19 + random.nextInt(20);
            int scale = random.nextInt(precision + 1);
            LogicalValueParser parser = LogicalValueParser.of(decimal("k", PrimitiveTypeName.BINARY, 0, precision,
                    scale));
            BigInteger unscaled = edge ? edges.get(round / 2) : new BigInteger(random.nextInt(1, 128),
                    new java.util.Random(random.nextLong())).mod(BigInteger.TEN.pow(precision));
            if (edge ? round % 2 == 1 : random.nextBoolean()) {
                unscaled = unscaled.negate();
            }
            String text = new BigDecimal(unscaled, scale).toPlainString();
            text = (random.nextInt(4) == 0 && unscaled.signum() >= 0 ? "+" : "") + text
                    + (random.nextInt(4) == 0 ? (scale == 0 ? ".00" : "00") : "");
            byte[] b = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            assertThat(parser.parse(b, 0, b.length)).as(text + " as DECIMAL(%d,%d)", precision, scale).isTrue();
            assertThat(Arrays.copyOf(parser.bytes, parser.length)).as(text).isEqualTo(unscaled.toByteArray());
        }
        LogicalValueParser wide = LogicalValueParser.of(decimal("k", PrimitiveTypeName.BINARY, 0, 20, 2));
        for (String refused : new String[] {"1234567890123456789.0", "0.001", "1e5", "", "-", "1.2.3"}) {
            byte[] b = refused.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            assertThat(b.length > 0 && wide.parse(b, 0, b.length)).as(refused).isFalse();
        }
        assertThat(LogicalValueParser.of(decimal("k", PrimitiveTypeName.BINARY, 0, 39, 2))).as("beyond 128 bits")
                .isNull();
    }

    @Test
    void aCsvKeyPairedWithAWideDecimalIsReadAsItAndWrittenAsItsPartnersType() throws IOException {
        BigInteger big = new BigInteger("12345678901234567890123");
        Path parquet = ParquetTestFiles.writeWithParquetJava(dir.resolve("w.parquet"),
                schema(decimal("pk", PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, 16, 25, 4), "j"), false,
                new Object[] {twosComplement(big, 16), 0L}, new Object[] {twosComplement(big.negate(), 16), 1L},
                new Object[] {twosComplement(BigInteger.valueOf(-1), 16), 2L},
                new Object[] {twosComplement(BigInteger.ZERO, 16), 3L});
        Path csv = CsvTestFiles.write(dir, "c.csv", "ck,x\n1234567890123456789.0123,a\n-1234567890123456789.01230,b\n"
                + "-0.0001,c\n-0,d\n+0.0000,e\n1234567890123456789.0124,f\n");
        assertThat(join(csv, parquet, "ck=pk")).as(run.err()).isZero();
        assertThat(run.sortedRows()).containsExactly("-0.0001,c,-0.0001,2",
                "-1234567890123456789.0123,b,-1234567890123456789.0123,1", "0.0000,d,0.0000,3", "0.0000,e,0.0000,3",
                "1234567890123456789.0123,a,1234567890123456789.0123,0");

        Path written = dir.resolve("out.parquet");
        assertThat(join(csv, parquet, "ck=pk", "--output", written.toString())).as(run.err()).isZero();
        assertThat(footerSchema(written).getType("ck")).as("the CSV key written as its partner's type")
                .isEqualTo(decimal("ck", PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, 16, 25, 4));
        assertThat(join(written, parquet, "ck=pk", "--type", "semi")).as(run.err()).isZero();
        assertThat(run.sortedRows()).as("the Parquet output read back joins its partner").hasSize(5);
    }

    @Test
    void aValueLongerThanItsPrecisionAllowsIsRefusedNamingFileAndColumn() throws IOException {
        Path parquet = ParquetTestFiles.writeWithParquetJava(dir.resolve("p.parquet"),
                schema(decimal("pk", PrimitiveTypeName.BINARY, 0, 4, 2), "j"), false,
                new Object[] {new byte[] {0, 1}, 0L}, new Object[] {new byte[] {1, 0, 0}, 1L});
        Path csv = CsvTestFiles.write(dir, "c.csv", "ck\n0.01\n");
        assertThat(join(csv, parquet, "ck=pk")).isEqualTo(ExitCodes.INPUT);
        assertThat(run.err().lines()).hasSize(1);
        assertThat(run.err()).contains(parquet.toString(), "'pk'", "DECIMAL(4,2)", "3 bytes",
                "not a value of its type");
        assertThat(run.out()).isEmpty();
    }

    /**
     * One DECIMAL(9,2) in an INT32 part file and an INT64 one: the output writes it as INT32, the first part's type,
     * so an INT64 value wider than any value of the precision needs (5 bytes where 4 hold every one) is refused as a
     * byte value is, naming file and column, rather than cut to its low 32 bits; one within 4 bytes is read.
     */
    @Test
    void anIntegerStoredDecimalWiderThanItsPrecisionAllowsIsRefusedNamingFileAndColumn() throws IOException {
        Path parts = dir.resolve("parts");
        ParquetTestFiles.writeWithParquetJava(parts.resolve("part-0.parquet"),
                schema(decimal("pk", PrimitiveTypeName.INT32, 0, 9, 2), "j"), false, new Object[] {5, 0L});
        Path wide = ParquetTestFiles.writeWithParquetJava(parts.resolve("part-1.parquet"),
                schema(decimal("pk", PrimitiveTypeName.INT64, 0, 9, 2), "j"), false,
                new Object[] {-2_147_483_648L, 1L}, new Object[] {(1L << 32) + 5, 2L});
        Path csv = CsvTestFiles.write(dir, "c.csv", "ck\n0.05\n");
        assertThat(join(csv, parts, "ck=pk", "--output", dir.resolve("out.parquet").toString()))
                .isEqualTo(ExitCodes.INPUT);
        assertThat(run.err().lines()).hasSize(1);
        assertThat(run.err()).contains(wide.toString(), "'pk'", "DECIMAL(9,2)", "5 bytes", "not a value of its type");
        assertThat(Files.exists(dir.resolve("out.parquet"))).isFalse();

        Files.delete(wide);
        ParquetTestFiles.writeWithParquetJava(wide, schema(decimal("pk", PrimitiveTypeName.INT64, 0, 9, 2), "j"),
                false, new Object[] {-2_147_483_648L, 1L}, new Object[] {2_147_483_647L, 2L});
        assertThat(join(csv, parts, "ck=pk", "--type", "right")).as(run.err()).isZero();
        assertThat(run.sortedRows()).containsExactly(",-21474836.48,1", ",21474836.47,2", "0.05,0.05,0");
    }

    @Test
    void decimalsOfOneScaleHeldDifferentlyAreRefusedWithACastThatPairsThem() throws IOException {
        Path left = ParquetTestFiles.writeWithParquetJava(dir.resolve("l.parquet"),
                schema(decimal("k", PrimitiveTypeName.INT64, 0, 18, 2), "i"), false, new Object[] {5L, 0L});
        Path right = ParquetTestFiles.writeWithParquetJava(dir.resolve("r.parquet"),
                schema(decimal("k", PrimitiveTypeName.BINARY, 0, 19, 2), "j"), false,
                new Object[] {new byte[] {5}, 0L});
        assertThat(join(left, right, "k")).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err().lines()).hasSize(1);
        assertThat(run.err()).contains("DECIMAL(18,2)", "DECIMAL(19,2)", "cast to DECIMAL(19,2)");
        assertThat(run.out()).isEmpty();
    }
}
