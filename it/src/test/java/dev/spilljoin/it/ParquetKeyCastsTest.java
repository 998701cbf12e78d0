package dev.spilljoin.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedWriter;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two Parquet keys of one kind in different units (README, "Key types", Parquet keys), which DuckDB joins by casting
 * both to a common type, against DuckDB's join of the same files: DECIMAL(10,2) with DECIMAL(12,4), DECIMAL(9,2)
 * with INTEGER, TIMESTAMP in MILLIS with NANOS and MICROS with NANOS, DATE with TIMESTAMP, TIME with TIME in NANOS.
 * Every join type (inner, left, right, full, semi, anti), in memory (64 MB) and spilled (1 MB; the stats must show
 * it), built on the left and on the right (semi and anti spill building on the left, whose rows are wider), written
 * to Parquet (compared with its column types: each key keeps its own) and to CSV (compared as the text DuckDB's
 * {@code COPY … TO 'x.csv'} writes). The keys: values equal only
 * after scaling, values one smallest unit of the finer side apart (which must match nothing), negative values, zero,
 * the largest of the coarser type, DuckDB's infinities where the type has them, and NULLs. Random draws: the seed is
 * printed, replay with {@code -Dseed=}; the spill directory must be left empty.
 */
class ParquetKeyCastsTest extends ParquetDuckDbTest {
    private static final long SEED = Long.getLong("seed", System.nanoTime());
    /** Rows per input: enough that 1 MB spills. */
    private static final int ROWS = 30_000;
    /** Values per side: the left draws indices from [0, KEYS), the right from [KEYS / 5, KEYS * 6 / 5). */
    private static final int KEYS = 12_000;

    /**
     * A pair of key types: the left's and the right's DuckDB type (written to Parquet by DuckDB), index i's value on
     * each side as text DuckDB casts to it, a right value one smallest unit of the finer side from index i's (a near
     * miss), and values both sides hold whatever the seed.
     */
    enum Pairing {
        DECIMAL_10_2_WITH_DECIMAL_12_4("DECIMAL(10,2)", "DECIMAL(12,4)", "99999999.99", "-99999999.99", "0.00") {
            @Override
            String value(long i) {
                long unscaled = i % 4 == 3 ? Math.floorMod(mix(i), 19_999_999_999L) - 9_999_999_999L : i - KEYS / 2;
                return BigDecimal.valueOf(unscaled, 2).toPlainString();
            }

            @Override
            String nearMiss(long i) {
                return new BigDecimal(value(i)).add(BigDecimal.valueOf(1, 4)).toPlainString();
            }
        },
        DECIMAL_9_2_WITH_INTEGER("DECIMAL(9,2)", "INTEGER", "0", "-5", "1", "9999999", "-9999999") {
            @Override
            String value(long i) {
                return Long.toString(i - KEYS / 2);
            }

            @Override
            String leftValue(long i) {
                return i % 3 == 0 ? BigDecimal.valueOf(i - KEYS / 2).add(BigDecimal.valueOf(i % 99 + 1, 2))
                        .toPlainString() : value(i); // a fraction: no integer equals it
            }

            /** An integer's smallest unit is 100 of the decimal's: the left's fractions are the near misses. */
            @Override
            String nearMiss(long i) {
                return Long.toString(i - KEYS / 2 + 1_000_000);
            }
        },
        TIMESTAMP_MS_WITH_TIMESTAMP_NS("TIMESTAMP_MS", "TIMESTAMP_NS", "1970-01-01 00:00:00",
                "1969-12-31 23:59:59.999", "infinity", "-infinity") {
            @Override
            String value(long i) {
                return timestamp(instant(i, 1_000_000L), 3);
            }

            @Override
            String nearMiss(long i) {
                return timestamp(instant(i, 1_000_000L) + 1, 9);
            }
        },
        TIMESTAMP_WITH_TIMESTAMP_NS("TIMESTAMP", "TIMESTAMP_NS", "1970-01-01 00:00:00", "1969-12-31 23:59:59.999999",
                "2262-04-11 00:00:00", "infinity") {
            @Override
            String value(long i) {
                return timestamp(instant(i, 1_000L), 6);
            }

            @Override
            String nearMiss(long i) {
                return timestamp(instant(i, 1_000L) - 1, 9);
            }
        },
        DATE_WITH_TIMESTAMP("DATE", "TIMESTAMP", "1970-01-01", "1969-12-31", "0001-01-01", "9999-12-31", "infinity",
                "-infinity") {
            @Override
            String value(long i) {
                return LocalDateTime.ofEpochSecond((i - KEYS / 2) * 86_400L * 37, 0, ZoneOffset.UTC).toLocalDate()
                        .toString();
            }

            @Override
            String nearMiss(long i) {
                return value(i) + " 00:00:00.000001";
            }
        },
        TIME_WITH_TIME_NS("TIME", "TIME_NS", "00:00:00", "23:59:59.999999", "12:00:00") {
            @Override
            String value(long i) {
                long micros = Math.floorMod(mix(i), 86_400_000_000L);
                return timestamp(micros * 1000, 6).substring(11);
            }

            @Override
            String nearMiss(long i) {
                long micros = Math.floorMod(mix(i), 86_400_000_000L);
                return timestamp(micros * 1000 + 1, 9).substring(11);
            }
        };

        final String leftType;
        final String rightType;
        final List<String> notable;

        Pairing(String leftType, String rightType, String... notable) {
            this.leftType = leftType;
            this.rightType = rightType;
            this.notable = List.of(notable);
        }

        /** Index {@code i}'s value, which both sides can hold. */
        abstract String value(long i);

        /** Index {@code i}'s value on the left (the coarser side): {@link #value}, unless the pairing says. */
        String leftValue(long i) {
            return value(i);
        }

        /** A right value one smallest unit of the finer side from index {@code i}'s. */
        abstract String nearMiss(long i);
    }

    static Stream<Arguments> pairingsJoinTypesAndBudgets() {
        return casesOf(Pairing.values(), List.of("inner", "left", "right", "full", "semi", "anti"));
    }

    @ParameterizedTest(name = "{0}, {1} join, --work-mem {2}")
    @MethodSource("pairingsJoinTypesAndBudgets")
    void joinEqualsDuckDbsJoin(Pairing pairing, String type, String workMem) throws Exception {
        long seed = SEED ^ mix(pairing.ordinal() * 16L + type.hashCode() * 2L + (workMem.equals("1MB") ? 1 : 0));
        String replay = announce(pairing, type, workMem, SEED);
        SplittableRandom random = new SplittableRandom(seed);
        Path left = input("l", pairing.leftType, pairing, 0, random);
        Path right = input("r", pairing.rightType, pairing, KEYS / 5, random);

        boolean leftOnly = type.equals("semi") || type.equals("anti");
        String expected = "(SELECT l.lk, l.lx" + (leftOnly ? "" : ", r.rk, r.rx") + " FROM read_parquet('" + left
                + "') l " + type.toUpperCase(Locale.ROOT) + " JOIN read_parquet('" + right + "') r ON l.lk = r.rk)";
        if (type.equals("inner")) {
            assertThat(count(expected)).as("rows of DuckDB's join, " + replay).isGreaterThan(ROWS / 4);
        }

        boolean spilling = workMem.equals("1MB");
        // semi and anti read the right as its keys, too few bytes to spill: they spill building on the left
        List<String> args = List.of("--left", left.toString(), "--right", right.toString(), "--on", "lk=rk", "--type",
                type, "--work-mem", workMem, "--build-side", spilling != leftOnly ? "right" : "left");
        ParquetDuckDb.assertJoinsAs(duck, dir, args, spilling, expected, replay);
    }

    /**
     * Writes {@code ROWS} rows of key {@code <side>k} (of DuckDB type {@code duckType}) and payload {@code <side>x} as
     * Parquet, written by DuckDB from text in row groups of 8,192 rows: first the pairing's notable values, then
     * values drawn from the indices {@code [from, from + KEYS)}, 1 in 30 NULL, on the right 1 in 8 a near miss.
     */
    private Path input(String side, String duckType, Pairing pairing, int from, SplittableRandom random)
            throws IOException, SQLException {
        Path text = dir.resolve(side + "-values.csv");
        try (BufferedWriter w = Files.newBufferedWriter(text)) {
            w.write(side + "k," + side + "x\n");
            for (int row = 0; row < ROWS; row++) {
                long i = from + random.nextInt(KEYS);
                String key = row < pairing.notable.size() ? pairing.notable.get(row) : random.nextInt(30) == 0 ? ""
                        : side.equals("l") ? pairing.leftValue(i)
                        : random.nextInt(8) == 0 ? pairing.nearMiss(i) : pairing.value(i);
                w.write(key + "," + side + "-row-" + row + "\n");
            }
        }
        Path parquet = dir.resolve(side + ".parquet");
        try (Statement st = duck.createStatement()) {
            st.execute("COPY (SELECT CAST(" + side + "k AS " + duckType + ") AS " + side + "k, " + side + "x FROM"
                    + " read_csv('" + text + "', header = true, all_varchar = true)) TO '" + parquet
                    + "' (FORMAT parquet, ROW_GROUP_SIZE 8192)");
        }
        return parquet;
    }

    private long count(String relation) throws SQLException {
        return ParquetDuckDb.count(duck, relation);
    }

    /**
     * Index {@code i}'s instant in nanoseconds since the epoch, in whole {@code unit}s: around 1970 (±80 days) or
     * anywhere in the years 1700 … 2199 (within TIMESTAMP_NS's range).
     */
    private static long instant(long i, long unit) {
        long nanos = i % 4 == 3
                ? (-8_520_336_000L + Math.floorMod(mix(i), 15_778_454_400L)) * 1_000_000_000L
                        + Math.floorMod(mix(~i), 1_000_000_000L)
                : (i - KEYS / 2) * 1_151_000_123_457L;
        return Math.floorDiv(nanos, unit) * unit;
    }

    /** {@code nanos} since the epoch as DuckDB casts text to a timestamp, with {@code digits} fraction digits. */
    private static String timestamp(long nanos, int digits) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L),
                (int) Math.floorMod(nanos, 1_000_000_000L), ZoneOffset.UTC);
        String fraction = String.format(Locale.ROOT, "%09d", t.getNano()).substring(0, digits);
        return t.toLocalDate() + " " + String.format(Locale.ROOT, "%02d:%02d:%02d", t.getHour(), t.getMinute(),
                t.getSecond()) + "." + fraction;
    }

    /** A 64-bit mix of {@code x} (SplitMix64's finalizer): the same index gives the same value on both sides. */
    private static long mix(long x) {
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }
}
