package dev.spilljoin.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedWriter;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keys of Parquet logical types (README, "Key types", Parquet keys) against DuckDB: for each pairing spilljoin
 * accepts — a CSV key with a Parquet DECIMAL(10,2) (INT64), DATE, TIMESTAMP (micros) or UUID key, a Parquet UINT32
 * key with an INT64 key and with a CSV key (values at and above 2^31, and 64-bit decoys whose low 32 bits equal a
 * UINT32 value), DECIMAL(18,2) (INT64) with DECIMAL(9,2) (INT32), UINT64 with UINT64 (values at and above 2^63) and
 * TIME adjusted to UTC (DuckDB's TIMETZ) with the same — an inner and a left join, in memory (64 MB)
 * and spilled (1 MB; the stats must show it), with NULL keys on both sides, each written to CSV and to Parquet,
 * give exactly DuckDB's join of the same files: DuckDB reads the CSV side itself (its own type detection) and joins
 * on {@code l.lk = r.rk}; the rows are compared as multisets (EXCEPT ALL both ways and the counts), the Parquet
 * output with its column types, the CSV output as the text DuckDB's {@code COPY … TO 'x.csv'} writes. The CSV
 * spellings vary as a person writes them ({@code 5}, {@code 5.1}, {@code 5.10}, {@code -0.05}, a {@code T} or a
 * space before the time, a date alone for a midnight, trailing fraction zeros, upper-case and braced UUIDs; notable
 * values such as 0.1, the epoch, 2^31 and 2^32 - 1 in every spelling, whatever the seed), and a CSV key is expected
 * as spilljoin writes it: as the Parquet partner's type (DuckDB's cast of it to that type; for the DECIMAL, whose
 * CSV key DuckDB reads as DOUBLE, this compares values, see {@link #columns}). The keys are drawn at random: the
 * seed is printed, replay with {@code -Dseed=}; the spill directory must be left empty.
 */
class ParquetLogicalKeysTest extends ParquetDuckDbTest {
    private static final long SEED = Long.getLong("seed", System.nanoTime());
    /** Rows per input: the build side of each pairing is more than 1 MB held, so that 1MB spills. */
    private static final int ROWS = 40_000;
    /** Key values per side: the left draws from [0, KEYS), the right from [KEYS / 5, KEYS * 6 / 5). */
    private static final int KEYS = 16_000;
    private static final long TWO_TO_32 = 1L << 32;

    /** The values of a key column: index i's value as DuckDB casts text to it, and as a person may write it. */
    enum Domain {
        /** Unscaled values around zero (-80.00 … 112.00, 0.05, 5.10) and anywhere in DECIMAL(10,2). */
        DECIMAL_10_2 {
            @Override
            String canonical(long i) {
                long unscaled = i % 5 == 4 ? Math.floorMod(mix(i), 19_999_999_999L) - 9_999_999_999L : i - KEYS / 2;
                return BigDecimal.valueOf(unscaled, 2).toPlainString();
            }

            @Override
            int spellings() {
                return 4;
            }

            @Override
            String spelled(long i, int spelling) {
                String text = canonical(i);
                return switch (spelling) {
                    case 0 -> text; // 5.10, -0.05
                    case 1 -> new BigDecimal(text).stripTrailingZeros().toPlainString(); // 5.1, 5, 0.1, 0
                    case 2 -> text + "00"; // zeros beyond the scale
                    default -> text.equals("0.00") ? "-0" : text.replaceAll("\\.?0+$", ""); // 5.1, 5, 100
                };
            }

            @Override
            long[] notable() {
                return offsets(0, 500, 510, -5, 10, 1, -2, 100_00); // 0, 5, 5.1, -0.05, 0.1, 0.01, -0.02, 100
            }
        },
        /** DECIMAL(9,2)'s values; the decoys (only in the DECIMAL(18,2) side) differ from one by ±2^32 unscaled. */
        DECIMAL_9_2 {
            @Override
            String canonical(long i) {
                return BigDecimal.valueOf(unscaled(i), 2).toPlainString();
            }

            @Override
            String decoy(long i) {
                return BigDecimal.valueOf(unscaled(i) + (i % 2 == 0 ? TWO_TO_32 : -TWO_TO_32), 2).toPlainString();
            }

            @Override
            long[] notable() {
                return offsets(0, 500, 510, -5, 10, 4); // 0, 5, 5.1, -0.05, 0.1, a value of 9 digits
            }

            private long unscaled(long i) {
                return i % 5 == 4 ? Math.floorMod(mix(i), 1_999_999_999L) - 999_999_999L : i - KEYS / 2;
            }
        },
        /** Days around 1970 (±66 years) and anywhere in 0001-01-01 … 9999-12-31. */
        DATE {
            @Override
            String canonical(long i) {
                long days = i % 4 == 3 ? -719_162 + Math.floorMod(mix(i), 2_932_897L + 719_162) : (i - KEYS / 2) * 3;
                return LocalDate.ofEpochDay(days).toString();
            }

            @Override
            long[] notable() {
                return offsets(0, 1, -2, -1); // 1970-01-01, 1970-01-04, 1969-12-26, any
            }
        },
        /**
         * Microseconds around 1970 (±205 days) and anywhere in the years 0001 … 9999, in whole seconds,
         * milliseconds or microseconds, some at midnight.
         */
        TIMESTAMP {
            @Override
            String canonical(long i) {
                LocalDateTime t = time(i);
                return t.toLocalDate() + " " + clock(t) + "." + String.format(Locale.ROOT, "%06d", t.getNano() / 1000);
            }

            /** Date alone (at midnight) or not, times {@code T} or a space, times three fractions. */
            @Override
            int spellings() {
                return 12;
            }

            @Override
            String spelled(long i, int spelling) {
                LocalDateTime t = time(i);
                if (t.toLocalTime().toNanoOfDay() == 0 && spelling % 2 == 0) {
                    return t.toLocalDate().toString(); // a date alone is its midnight
                }
                String fraction = String.format(Locale.ROOT, "%06d", t.getNano() / 1000);
                fraction = switch (spelling / 4) {
                    case 0 -> fraction.replaceAll("0+$", "");
                    case 1 -> fraction;
                    default -> fraction + "000";
                };
                return t.toLocalDate() + (spelling / 2 % 2 == 0 ? "T" : " ") + clock(t)
                        + (fraction.isEmpty() ? "" : "." + fraction);
            }

            /** The epoch; before it in micros, in millis and at midnight; after it in seconds; any. */
            @Override
            long[] notable() {
                return offsets(0, -7, -2, -6, 2, -1);
            }

            private LocalDateTime time(long i) {
                long micros = i % 4 == 3
                        ? -62_135_596_800_000_000L + Math.floorMod(mix(i), 315_537_897_600_000_000L) // 0001 … 9999
                        : (i - KEYS / 2) * 2_221_000_123L;
                long unit = switch ((int) (i % 7)) {
                    case 0 -> 86_400_000_000L;
                    case 1, 2 -> 1_000_000L;
                    case 3, 4 -> 1_000L;
                    default -> 1L;
                };
                micros = Math.floorDiv(micros, unit) * unit;
                return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                        (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
            }

            private String clock(LocalDateTime t) {
                return String.format(Locale.ROOT, "%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond());
            }
        },
        /** Random UUIDs; written lower-case, upper-case, in braces or without the dashes. */
        UUIDS {
            @Override
            String canonical(long i) {
                return new UUID(mix(i), mix(~i)).toString();
            }

            @Override
            int spellings() {
                return 5;
            }

            @Override
            String spelled(long i, int spelling) {
                String text = canonical(i);
                return switch (spelling) {
                    case 0 -> text;
                    case 1 -> text.toUpperCase(Locale.ROOT);
                    case 2 -> "{" + text + "}";
                    case 3 -> text.replace("-", "");
                    default -> "{" + text.replace("-", "").toUpperCase(Locale.ROOT) + "}";
                };
            }
        },
        /**
         * UINT32 values: 0, 2^31 - 1, 2^31, 2^32 - 1, small ones and any; the decoys (in the signed side only)
         * equal a value in their low 32 bits: one of 2^31 or more read as a signed INT32 (2^32 - 1 as -1), any other
         * plus 2^32.
         */
        UINT32 {
            @Override
            String canonical(long i) {
                return Long.toString(value(i));
            }

            @Override
            String decoy(long i) {
                long value = value(i);
                return Long.toString(value >= 1L << 31 ? value - TWO_TO_32 : value + TWO_TO_32);
            }

            @Override
            long[] notable() {
                return extremes();
            }

            private long value(long i) {
                return extremeOr(i, new long[] {0, Integer.MAX_VALUE, 1L << 31, TWO_TO_32 - 1},
                        i % 3 == 0 ? i * 5 : i % 3 == 1 ? (1L << 31) + Math.floorMod(mix(i), 1L << 31)
                                : Math.floorMod(mix(i), TWO_TO_32));
            }
        },
        /**
         * UINT64 values (held by their 64 bits): 0, 2^63 - 1, 2^63, 2^64 - 1, small ones and any bits, half of them
         * 2^63 or more, which a signed reading orders below zero.
         */
        UINT64 {
            @Override
            String canonical(long i) {
                return Long.toUnsignedString(bits(i));
            }

            @Override
            long[] notable() {
                return extremes();
            }

            private long bits(long i) {
                return extremeOr(i, new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE, -1}, i % 2 == 0 ? i * 7 : mix(i));
            }
        },
        /**
         * TIME WITH TIME ZONE (DuckDB writes it as a Parquet TIME adjusted to UTC, in microseconds, each value moved
         * to UTC): times of day in whole seconds, milliseconds or microseconds, midnight and the last microsecond,
         * at offsets +00, +05:30 and -08 (so that some wrap past midnight as they move to UTC).
         */
        TIMETZ {
            private static final long DAY_MICROS = 86_400_000_000L;

            @Override
            String canonical(long i) {
                long micros = switch ((int) (i % 1000)) {
                    case 0 -> 0;
                    case 1 -> DAY_MICROS - 1;
                    default -> Math.floorMod(i % 4 == 3 ? mix(i) : i * 1_234_567_891L, DAY_MICROS);
                };
                long unit = i % 5 == 0 ? 1_000_000L : i % 5 == 1 ? 1_000L : 1L;
                micros = micros / unit * unit;
                String offset = switch ((int) (i % 3)) {
                    case 0 -> "+00";
                    case 1 -> "+05:30";
                    default -> "-08";
                };
                return LocalTime.ofNanoOfDay(micros * 1000).format(DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS",
                        Locale.ROOT)) + offset;
            }

            @Override
            long[] notable() {
                return new long[] {3000, 4001, 4000 + 2 * 3, 4000 + 5}; // midnight, the last microsecond, any
            }
        };

        /** Index {@code i}'s value as text DuckDB casts to the column's type (one text per value). */
        abstract String canonical(long i);

        /** How many ways {@link #spelled} writes a value. */
        int spellings() {
            return 1;
        }

        /** Index {@code i}'s value as a CSV key may spell it, the {@code spelling}th way. */
        String spelled(long i, int spelling) {
            return canonical(i);
        }

        /** Indices of values each input holds whatever the seed, a CSV side in every spelling. */
        long[] notable() {
            return offsets(0);
        }

        /** A value that must match no value of the domain, though a key read with the wrong width may; or null. */
        String decoy(long i) {
            return null;
        }

        /** Indices 4000 … 4003: those whose values are an integer domain's extremes ({@link #extremeOr}). */
        private static long[] extremes() {
            return new long[] {4000, 4001, 4002, 4003};
        }

        /** Index {@code i}'s value: {@code extremes[i % 1000]} when there is one, else {@code other}. */
        private static long extremeOr(long i, long[] extremes, long other) {
            int at = (int) (i % 1000);
            return at < extremes.length ? extremes[at] : other;
        }

        /** Indices {@code KEYS / 2 + offset}. */
        private static long[] offsets(long... offsets) {
            return Arrays.stream(offsets).map(o -> KEYS / 2 + o).toArray();
        }
    }

    /**
     * A pair of key columns: each side's DuckDB type when it is a Parquet file (null: a CSV file), the type spilljoin
     * writes a CSV key as (the Parquet partner's), the values, and the side that also holds decoys.
     */
    enum Pairing {
        CSV_WITH_DECIMAL(null, "DECIMAL(10,2)", "DECIMAL(10,2)", Domain.DECIMAL_10_2, null),
        DATE_WITH_CSV("DATE", null, "DATE", Domain.DATE, null),
        CSV_WITH_TIMESTAMP(null, "TIMESTAMP", "TIMESTAMP", Domain.TIMESTAMP, null),
        UUID_WITH_CSV("UUID", null, "UUID", Domain.UUIDS, null),
        UINT32_WITH_INT64("UINTEGER", "BIGINT", null, Domain.UINT32, "right"),
        /** The CSV key is an inferred BIGINT and written as read. */
        CSV_WITH_UINT32(null, "UINTEGER", "BIGINT", Domain.UINT32, "left"),
        DECIMAL_18_2_WITH_DECIMAL_9_2("DECIMAL(18,2)", "DECIMAL(9,2)", null, Domain.DECIMAL_9_2, "left"),
        UINT64_WITH_UINT64("UBIGINT", "UBIGINT", null, Domain.UINT64, null),
        TIMETZ_WITH_TIMETZ("TIMETZ", "TIMETZ", null, Domain.TIMETZ, null);

        final String leftType;
        final String rightType;
        final String csvKeyType;
        final Domain domain;
        final String decoySide;

        Pairing(String leftType, String rightType, String csvKeyType, Domain domain, String decoySide) {
            this.leftType = leftType;
            this.rightType = rightType;
            this.csvKeyType = csvKeyType;
            this.domain = domain;
            this.decoySide = decoySide;
        }
    }

    static Stream<Arguments> pairingsJoinTypesAndBudgets() {
        return casesOf(Pairing.values(), List.of("inner", "left"));
    }

    @ParameterizedTest(name = "{0}, {1} join, --work-mem {2}")
    @MethodSource("pairingsJoinTypesAndBudgets")
    void joinEqualsDuckDbsJoin(Pairing pairing, String type, String workMem) throws Exception {
        long seed = SEED ^ mix(pairing.ordinal() * 4L + (type.equals("left") ? 2 : 0)
                + (workMem.equals("1MB") ? 1 : 0));
        String replay = announce(pairing, type, workMem, SEED);
        SplittableRandom random = new SplittableRandom(seed);
        Path left = input("left", pairing.leftType, pairing, 0, random);
        Path right = input("right", pairing.rightType, pairing, KEYS / 5, random);

        String expected = "(SELECT " + columns("l", "lk", "lx", pairing.leftType, pairing) + ", "
                + columns("r", "rk", "rx", pairing.rightType, pairing) + " FROM " + relation(left) + " l"
                + (type.equals("left") ? " LEFT" : "") + " JOIN " + relation(right) + " r ON l.lk = r.rk)";
        assertThat(count(expected)).as("rows of DuckDB's join, " + replay).isGreaterThan(ROWS / 2);
        if (pairing == Pairing.CSV_WITH_DECIMAL) {
            assertThat(types(relation(left)).get(0)).as("DuckDB's type of the CSV key (see columns)")
                    .isEqualTo("DOUBLE");
        }

        boolean spilling = workMem.equals("1MB");
        List<String> args = List.of("--left", left.toString(), "--right", right.toString(), "--on", "lk=rk", "--type",
                type, "--work-mem", workMem);
        ParquetDuckDb.assertJoinsAs(duck, dir, args, spilling, expected, replay);
    }

    /**
     * Writes {@code ROWS} rows of key {@code <side>k} and payload {@code <side>x}: first the domain's notable values
     * (a CSV side: in every spelling; the decoy side: and their decoys), then keys drawn from the domain's indices
     * {@code [from, from + KEYS)}, 1 in 30 NULL, 1 in 10 a decoy on the pairing's decoy side. As CSV (keys spelled
     * at random) when {@code duckType} is null, else as Parquet of that type (written by DuckDB from the canonical
     * text, row groups of 8,192 rows).
     */
    private Path input(String side, String duckType, Pairing pairing, int from, SplittableRandom random)
            throws IOException, SQLException {
        boolean csv = duckType == null;
        boolean decoys = side.equals(pairing.decoySide);
        String s = side.substring(0, 1);
        Path text = dir.resolve(side + (csv ? ".csv" : "-values.csv"));
        try (BufferedWriter w = Files.newBufferedWriter(text)) {
            w.write(s + "k," + s + "x\n");
            Domain domain = pairing.domain;
            List<String> keys = new ArrayList<>();
            for (long i : domain.notable()) {
                for (int spelling = 0; spelling < (csv ? domain.spellings() : 1); spelling++) {
                    keys.add(csv ? domain.spelled(i, spelling) : domain.canonical(i));
                }
                if (decoys) {
                    keys.add(domain.decoy(i));
                }
            }
            for (int row = 0; row < ROWS; row++) {
                long i = from + random.nextInt(KEYS);
                String key = row < keys.size() ? keys.get(row) : random.nextInt(30) == 0 ? ""
                        : decoys && random.nextInt(10) == 0 ? domain.decoy(i)
                        : csv ? domain.spelled(i, random.nextInt(domain.spellings())) : domain.canonical(i);
                w.write(key + "," + side + "-row-" + row + "\n");
            }
        }
        if (csv) {
            return text;
        }
        Path parquet = dir.resolve(side + ".parquet");
        try (Statement st = duck.createStatement()) {
            st.execute("COPY (SELECT CAST(" + s + "k AS " + duckType + ") AS " + s + "k, " + s + "x FROM read_csv('"
                    + text + "', header = true, all_varchar = true)) TO '" + parquet
                    + "' (FORMAT parquet, ROW_GROUP_SIZE 8192)");
        }
        return parquet;
    }

    /** DuckDB's reading of an input: a Parquet file as its types, a CSV file as DuckDB detects them. */
    private static String relation(Path input) {
        return input.toString().endsWith(".parquet") ? "read_parquet('" + input + "')"
                : "read_csv('" + input + "', header = true, sample_size = -1)";
    }

    /**
     * The expected columns of one side. A CSV key is written by spilljoin as its Parquet partner's type (README), so
     * DuckDB's value is cast to that type. For the DECIMAL pairing this is also where spilljoin differs from DuckDB
     * by design (README, "Key types"): DuckDB detects the CSV key as DOUBLE and joins by doubles, spilljoin reads it
     * exactly as the DECIMAL(10,2); for keys of at most 10 digits both match the same rows, but DuckDB writes the
     * DOUBLE ({@code 5.1}) where spilljoin writes the DECIMAL ({@code 5.10}), so the key is compared as a value (the
     * DOUBLE cast to DECIMAL(10,2)), not as DuckDB's text of it.
     */
    private static String columns(String alias, String key, String payload, String duckType, Pairing pairing) {
        String k = alias + "." + key;
        return (duckType == null ? "CAST(" + k + " AS " + pairing.csvKeyType + ") AS " + key : k) + ", " + alias + "."
                + payload;
    }

    private long count(String relation) throws SQLException {
        return ParquetDuckDb.count(duck, relation);
    }

    private List<String> types(String relation) throws SQLException {
        return ParquetDuckDb.types(duck, relation);
    }

    /** A 64-bit mix of {@code x} (SplitMix64's finalizer): the same index gives the same value on both sides. */
    private static long mix(long x) {
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }
}
