package dev.spilljoin.estimator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.spilljoin.workloads.ZipfDistribution;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class KeySketchesTest {
    private static final int BATCH = 1024;
    private static final long ROW_BYTES = 24;

    @Test
    void distinctCountIsWithinTwoPercentAtTenMillionKeys() {
        long seed = KeyData.seed("distinctCountIsWithinTwoPercentAtTenMillionKeys");
        int keys = 10_000_000;
        long offset = new SplittableRandom(seed).nextLong();
        KeySketches sketches = new KeySketches(SketchConfig.BUILD);
        long[] batch = new long[BATCH];
        // every key twice, the second pass in the other order: duplicates must not count
        for (int pass = 0; pass < 2; pass++) {
            for (int from = 0; from < keys; from += BATCH) {
                int n = Math.min(BATCH, keys - from);
                for (int i = 0; i < n; i++) {
                    int key = pass == 0 ? from + i : keys - 1 - (from + i);
                    batch[i] = KeyData.fmix64(offset + key);
                }
                sketches.update(batch, n, n * ROW_BYTES);
            }
        }

        assertThat(sketches.rows()).isEqualTo(2L * keys);
        assertThat(sketches.bytes()).isEqualTo(2L * keys * ROW_BYTES);
        assertThat((double) sketches.distinctEstimate()).isCloseTo(keys, within(0.02 * keys));
        assertThat(sketches.distinctUpperBound(3)).isGreaterThanOrEqualTo(sketches.distinctEstimate());
        System.out.printf("distinct: estimate %d of %d (%.3f %% off)%n", sketches.distinctEstimate(), keys,
                100.0 * (sketches.distinctEstimate() - keys) / keys);
    }

    /**
     * Rows without a key (NULL keys, whose hashes are one meaningless value) count as rows and bytes but as no key: half
     * the rows NULL, sampled every row or every k-th, leave no frequent key and a distinct count of the other half's;
     * fed without the mask, the NULL rows' one hash is found as a key of half the rows.
     */
    @Test
    void rowsWithoutAKeyCountAsRowsButNeverAsAFrequentKey() {
        long nullHash = 0x5DEECE66DL;
        SketchConfig[] configs = {SketchConfig.BUILD, SketchConfig.BUILD.frequentItemsEveryKthRow(1)};
        for (SketchConfig config : configs) {
            KeySketches masked = new KeySketches(config);
            KeySketches unmasked = new KeySketches(config);
            long[] batch = new long[BATCH];
            long[] noKey = new long[BATCH / 64];
            int keys = 0;
            for (int b = 0; b < 200; b++) {
                java.util.Arrays.fill(noKey, 0);
                for (int i = 0; i < BATCH; i++) {
                    if (i % 2 == 0) {
                        batch[i] = nullHash;
                        noKey[i >>> 6] |= 1L << i;
                    } else {
                        batch[i] = KeyData.fmix64(keys++);
                    }
                }
                masked.update(batch, noKey, BATCH, BATCH * ROW_BYTES);
                unmasked.update(batch, BATCH, BATCH * ROW_BYTES);
            }
            long rows = 200L * BATCH;
            assertThat(masked.rows()).isEqualTo(rows);
            assertThat(masked.bytes()).isEqualTo(rows * ROW_BYTES);
            assertThat(HeavyHitters.find(masked, rows / 100).isEmpty()).as("frequent keys of %s", config).isTrue();
            assertThat((double) masked.distinctEstimate()).isCloseTo(keys, within(0.02 * keys));
            HeavyHitters unmaskedHeavy = HeavyHitters.find(unmasked, rows / 100);
            assertThat(unmaskedHeavy.size()).as("the unmasked NULL hash").isEqualTo(1);
            assertThat(unmaskedHeavy.hash(0)).isEqualTo(nullHash);
        }
    }

    /**
     * Early in a sampled input (every 16th row), a threshold of a few rows is below one sighting's scale: distinct keys,
     * each seen at most once, give no candidate, in one sketch or two parts; a key seen twice does.
     */
    @Test
    void aKeySeenOnceIsNoCandidateBelowTheSamplingScale() {
        KeySketches one = new KeySketches(SketchConfig.BUILD);
        KeySketches[] parts = {new KeySketches(SketchConfig.BUILD), new KeySketches(SketchConfig.BUILD)};
        long[] batch = new long[28];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = KeyData.fmix64(i);
        }
        for (KeySketches s : new KeySketches[] {one, parts[0], parts[1]}) {
            s.update(batch, batch.length, batch.length * ROW_BYTES);
        }
        assertThat(HeavyHitters.find(one, 2).isEmpty()).as("one sketch").isTrue();
        assertThat(HeavyHitters.find(parts, 2).isEmpty()).as("two parts").isTrue();
        KeySketches exact = new KeySketches(SketchConfig.BUILD.frequentItemsEveryKthRow(1));
        long[] twice = {KeyData.fmix64(1), KeyData.fmix64(1), KeyData.fmix64(2)};
        exact.update(twice, twice.length, twice.length * ROW_BYTES);
        assertThat(HeavyHitters.find(exact, 1).size()).as("a key seen twice above 1 row").isEqualTo(1);
    }

    /**
     * The build's default sample (every 16th row) at the threshold the join asks it for, a partition's fair share of
     * the rows so far, after 32 batches of 4,096 rows: eight keys of about 1.6 times the share each (fanout 64) among
     * otherwise distinct keys are found, and only they, each with an estimate within 30 % of its rows (about 200
     * sightings a key: a failure is over 4 standard deviations away; the seed replays it). A sample too sparse for
     * the threshold fails it (every 512th row: each key seen about 6 times).
     */
    @Test
    void theBuildsSampleFindsKeysOfAPartitionsShareWithinTheFirstBatches() {
        long seed = KeyData.seed("theBuildsSampleFindsKeysOfAPartitionsShareWithinTheFirstBatches");
        SplittableRandom random = new SplittableRandom(seed);
        int batchRows = 4096;
        int rows = 32 * batchRows;
        long share = rows / 64;
        int heavyKeys = 8;
        int[] heavyRows = new int[heavyKeys];
        KeySketches sketches = new KeySketches(SketchConfig.BUILD);
        long[] batch = new long[batchRows];
        for (int from = 0; from < rows; from += batchRows) {
            for (int i = 0; i < batchRows; i++) {
                int pick = random.nextInt(1000); // 25 in 1000 rows: each heavy key 2.5 % of the rows
                int heavy = pick < 25 * heavyKeys ? pick / 25 : -1;
                if (heavy >= 0) {
                    heavyRows[heavy]++;
                    batch[i] = KeyData.fmix64(-1 - heavy);
                } else {
                    batch[i] = KeyData.fmix64(from + i);
                }
            }
            sketches.update(batch, batchRows, batchRows * ROW_BYTES);
        }

        HeavyHitters found = HeavyHitters.find(sketches, share);
        assertThat(found.size()).as("keys found above %d rows", share).isEqualTo(heavyKeys);
        for (int k = 0; k < heavyKeys; k++) {
            assertThat(heavyRows[k]).isGreaterThan((int) (1.2 * share));
            int i = indexOf(found, KeyData.fmix64(-1 - k));
            assertThat((double) found.estimatedRows(i)).as("heavy key %d's rows", k)
                    .isCloseTo(heavyRows[k], within(0.3 * heavyRows[k]));
        }
    }

    @Test
    void keysOfAtLeastOnePercentAreFoundWithFullRecallOnZipf() {
        long seed = KeyData.seed("keysOfAtLeastOnePercentAreFoundWithFullRecallOnZipf");
        int distinct = 1_000_000;
        int rows = 10_000_000;
        ZipfDistribution zipf = ZipfDistribution.ofExponent(distinct, 1.1);
        SplittableRandom random = new SplittableRandom(seed);
        long rankOffset = random.nextLong();
        KeySketches exact = new KeySketches(SketchConfig.BUILD.frequentItemsEveryKthRow(1));
        KeySketches sampled = new KeySketches(SketchConfig.BUILD);
        int[] counts = zipfBatches(zipf, random, rankOffset, rows, (batch, n) -> {
            exact.update(batch, n, n * ROW_BYTES);
            sampled.update(batch, n, n * ROW_BYTES);
        });

        long onePercent = rows / 100;
        long threshold = onePercent - 1; // "at least 1 %" = more than threshold rows
        HeavyHitters fromExact = HeavyHitters.find(exact, threshold);
        HeavyHitters fromSampled = HeavyHitters.find(sampled, threshold);
        int heavy = 0;
        for (int rank = 1; rank <= distinct; rank++) {
            long hash = KeyData.fmix64(rankOffset + rank);
            if (counts[rank] >= onePercent) {
                heavy++;
                assertThat(fromExact.contains(hash)).as("exact sketch finds rank %d (%d rows)", rank, counts[rank])
                        .isTrue();
                assertThat(fromSampled.contains(hash)).as("sampled sketch finds rank %d (%d rows)", rank, counts[rank])
                        .isTrue();
            }
        }
        // Zipf(1.1) over 1M keys puts about 9 keys above 1 %: the recall check must have something to find
        assertThat(heavy).isGreaterThanOrEqualTo(5);
        for (int i = 0; i < fromExact.size(); i++) {
            long hash = fromExact.hash(i);
            int trueRows = trueCount(counts, rankOffset, hash);
            assertThat(fromExact.upperBoundRows(i)).as("upper bound of %x", hash).isGreaterThanOrEqualTo(trueRows);
            assertThat(fromExact.estimatedBytes(i)).isEqualTo(fromExact.estimatedRows(i) * ROW_BYTES);
        }
        for (int i = 0; i < fromSampled.size(); i++) {
            int trueRows = trueCount(counts, rankOffset, fromSampled.hash(i));
            if (trueRows >= onePercent) {
                assertThat((double) fromSampled.estimatedRows(i)).isCloseTo(trueRows, within(0.05 * trueRows));
            }
        }
        assertThat(fromExact.guaranteedAboveRows()).isEqualTo(threshold);
        assertThat(fromExact.recallGuaranteed()).isTrue();
        assertThat(fromSampled.recallGuaranteed()).isFalse();
        System.out.printf("zipf: %d keys >= 1 %%; exact sketch reports %d, sampled reports %d%n", heavy,
                fromExact.size(), fromSampled.size());
    }

    /**
     * Three workers' sketches (every row into the frequent items, so that the bounds are guaranteed) over batches of
     * one Zipf input dealt out at random: asked together (without merging), they find every key of at least 1 % as one
     * sketch over all rows does, with an upper bound at or above its rows and an estimate within 5 %; merged, they count every row and byte and estimate the distinct keys within 2 %
     * of the one sketch's estimate.
     */
    @Test
    void workersSketchesAskedTogetherOrMergedMatchOneSketchOverAllRows() {
        long seed = KeyData.seed("workersSketchesAskedTogetherOrMergedMatchOneSketchOverAllRows");
        int distinct = 200_000;
        int rows = 2_000_000;
        ZipfDistribution zipf = ZipfDistribution.ofExponent(distinct, 1.1);
        SplittableRandom random = new SplittableRandom(seed);
        long rankOffset = random.nextLong();
        SketchConfig config = SketchConfig.BUILD.frequentItemsEveryKthRow(1);
        KeySketches one = new KeySketches(config);
        KeySketches[] parts = new KeySketches[3];
        for (int w = 0; w < parts.length; w++) {
            parts[w] = new KeySketches(config);
        }
        int[] counts = zipfBatches(zipf, random, rankOffset, rows, (batch, n) -> {
            one.update(batch, n, n * ROW_BYTES);
            parts[random.nextInt(parts.length)].update(batch, n, n * ROW_BYTES);
        });
        long onePercent = rows / 100;
        HeavyHitters together = HeavyHitters.find(parts, onePercent - 1);
        int heavy = 0;
        for (int rank = 1; rank <= distinct; rank++) {
            if (counts[rank] >= onePercent) {
                heavy++;
                long hash = KeyData.fmix64(rankOffset + rank);
                assertThat(together.contains(hash)).as("rank %d (%d rows)", rank, counts[rank]).isTrue();
            }
        }
        assertThat(heavy).isGreaterThanOrEqualTo(5);
        for (int i = 0; i < together.size(); i++) {
            int trueRows = trueCount(counts, rankOffset, together.hash(i));
            if (trueRows >= onePercent) {
                assertThat(together.upperBoundRows(i)).isGreaterThanOrEqualTo(trueRows);
                assertThat((double) together.estimatedRows(i)).isCloseTo(trueRows, within(0.05 * trueRows));
                assertThat(together.estimatedBytes(i)).isEqualTo(together.estimatedRows(i) * ROW_BYTES);
            }
        }
        assertThat(together.recallGuaranteed()).isTrue();
        assertThat(HeavyHitters.find(new KeySketches[] {one}, onePercent - 1).size())
                .isEqualTo(HeavyHitters.find(one, onePercent - 1).size());

        KeySketches merged = parts[0];
        merged.merge(parts[1]);
        merged.merge(parts[2]);
        assertThat(merged.rows()).isEqualTo(rows);
        assertThat(merged.bytes()).isEqualTo(rows * ROW_BYTES);
        assertThat(merged.sketchedRows()).isEqualTo(one.sketchedRows());
        assertThat((double) merged.distinctEstimate()).isCloseTo(one.distinctEstimate(),
                within(0.02 * one.distinctEstimate()));
        assertThat(HeavyHitters.find(merged, onePercent - 1).size()).isGreaterThanOrEqualTo(heavy);
        assertThatThrownBy(() -> merged.merge(new KeySketches(SketchConfig.BUILD)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be merged");
    }

    /** What a test does with each batch of key hashes: {@code n} hashes in {@code batch}. */
    private interface Batches {
        void accept(long[] batch, int n);
    }

    /**
     * Hands {@code rows} Zipf-distributed key hashes (rank r hashed as {@code fmix64(rankOffset + r)}) to
     * {@code batches} in batches of {@value #BATCH}; returns the rows of each rank.
     */
    private static int[] zipfBatches(ZipfDistribution zipf, SplittableRandom random, long rankOffset, int rows,
                                     Batches batches) {
        int[] counts = new int[zipf.ranks() + 1];
        long[] batch = new long[BATCH];
        for (int from = 0; from < rows; from += BATCH) {
            int n = Math.min(BATCH, rows - from);
            for (int i = 0; i < n; i++) {
                int rank = zipf.rank(random.nextDouble());
                counts[rank]++;
                batch[i] = KeyData.fmix64(rankOffset + rank);
            }
            batches.accept(batch, n);
        }
        return counts;
    }

    private static int trueCount(int[] counts, long rankOffset, long hash) {
        for (int rank = 1; rank < counts.length; rank++) {
            if (KeyData.fmix64(rankOffset + rank) == hash) {
                return counts[rank];
            }
        }
        throw new AssertionError("hash " + Long.toHexString(hash) + " is no key of the input");
    }

    @Test
    void rowSamplingDoesNotAliasWithPeriodicKeys() {
        // key 3 sits at row positions 17 mod 1000 only (the W2 workload's pattern): a fixed stride of 4 never sees it
        KeySketches sketches = new KeySketches(SketchConfig.BUILD.frequentItemsEveryKthRow(4));
        int rows = 2_000_000;
        long[] batch = new long[1000];
        for (int from = 0; from < rows; from += 1000) {
            for (int j = 0; j < 1000; j++) {
                batch[j] = KeyData.fmix64(j == 17 ? 3 : 1_000_000L + from + j);
            }
            sketches.update(batch, 1000, 1000 * ROW_BYTES);
        }
        HeavyHitters heavy = HeavyHitters.find(sketches, rows / 2000);
        assertThat(heavy.contains(KeyData.fmix64(3))).isTrue();
        int i = indexOf(heavy, KeyData.fmix64(3));
        assertThat((double) heavy.estimatedRows(i)).isCloseTo(rows / 1000.0, within(0.15 * rows / 1000));
    }

    @Test
    void batchSampleCountsEveryRowAndScalesFrequencies() {
        long seed = KeyData.seed("batchSampleCountsEveryRowAndScalesFrequencies");
        SplittableRandom random = new SplittableRandom(seed);
        KeySketches sample = new KeySketches(SketchConfig.BUILD.sampleEveryKthBatch(8));
        int batches = 4000;
        long hot = KeyData.fmix64(-1);
        long[] batch = new long[BATCH];
        long hotRows = 0;
        for (int b = 0; b < batches; b++) {
            for (int i = 0; i < BATCH; i++) {
                boolean isHot = random.nextInt(10) < 3;
                hotRows += isHot ? 1 : 0;
                batch[i] = isHot ? hot : KeyData.fmix64(random.nextLong(1 << 20));
            }
            sample.update(batch, BATCH, BATCH * ROW_BYTES);
        }

        assertThat(sample.rows()).isEqualTo((long) batches * BATCH);
        assertThat(sample.bytes()).isEqualTo((long) batches * BATCH * ROW_BYTES);
        assertThat(sample.sketchedRows()).isEqualTo((long) batches / 8 * BATCH);
        HeavyHitters heavy = sample.statistics(sample.rows() / 10).heavyHitters();
        assertThat(heavy.size()).isEqualTo(1);
        assertThat((double) heavy.estimatedRows(0)).isCloseTo(hotRows, within(0.05 * hotRows));
    }

    /**
     * A distinct-only sample (the probe side's): counts every row, sketches every 8th batch into the HyperLogLog only,
     * merges, reserves no frequent-items map, and refuses to be asked for heavy keys.
     */
    @Test
    void aDistinctOnlySampleCountsRowsAndDistinctKeysAndKeepsNoFrequentItems() {
        SketchConfig config = SketchConfig.BUILD.sampleEveryKthBatch(8).withoutFrequentItems();
        assertThat(config.keepsFrequentItems()).isFalse();
        KeySketches[] parts = {new KeySketches(config), new KeySketches(config)};
        java.util.Set<Long> sampledKeys = new java.util.HashSet<>();
        long[] batch = new long[BATCH];
        for (int b = 0; b < 1600; b++) {
            for (int i = 0; i < BATCH; i++) {
                batch[i] = KeyData.fmix64((long) b * BATCH + i); // every key distinct
            }
            KeySketches part = parts[b % 2];
            if (part.rows() / BATCH % 8 == 0) { // the batch this part sketches
                for (long h : batch) {
                    sampledKeys.add(h);
                }
            }
            part.update(batch, BATCH, BATCH * ROW_BYTES);
        }
        parts[0].merge(parts[1]);
        KeySketches sample = parts[0];
        assertThat(sample.rows()).isEqualTo(1600L * BATCH);
        assertThat(sample.sketchedRows()).isEqualTo(200L * BATCH).isEqualTo(sampledKeys.size());
        assertThat((double) sample.distinctEstimate()).isCloseTo(sampledKeys.size(), within(0.02 * sampledKeys.size()));
        assertThat(KeySketches.memoryBytes(config)).as("the HyperLogLog's registers, no frequent items")
                .isBetween(32_768L, 32_768L + 1024);
        assertThatThrownBy(() -> HeavyHitters.find(sample, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("keep no frequent items");
    }

    @Test
    void memoryBytesIsFixedAndCoversTheSketches() {
        KeySketches sketches = new KeySketches(SketchConfig.BUILD);
        long before = sketches.memoryBytes();
        long[] batch = KeyData.distinctHashes(100_000, 7);
        sketches.update(batch, batch.length, batch.length * ROW_BYTES);
        assertThat(sketches.memoryBytes()).isEqualTo(before).isEqualTo(KeySketches.memoryBytes(SketchConfig.BUILD));
        // 2^15 one-byte registers, 2048 slots of 18 bytes beside the 1024 they grew from, an 8 KiB purge sample, plus
        // headers
        long peak = 32_768L + 2048 * 18 + 1024 * 18 + 8192;
        assertThat(before).isBetween(peak, peak + 1024);
        assertThat(KeySketches.memoryBytes(new SketchConfig(12, 256, 1, 1))).isLessThan(before);
    }

    @Test
    void badBatchesAreRejectedWithTheReason() {
        KeySketches sketches = new KeySketches(SketchConfig.BUILD);
        assertThatThrownBy(() -> sketches.update(new long[4], 5, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("batch row count 5 is outside the hash array of length 4");
        assertThatThrownBy(() -> sketches.update(new long[4], 4, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("batch bytes must be >= 0, got -1");
        assertThatThrownBy(() -> new SketchConfig(15, 1000, 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("frequentItemsMapSize must be 0 or a power of two");
    }

    @Test
    void emptySketchesReportNothing() {
        KeySketches sketches = new KeySketches(SketchConfig.BUILD);
        InputStatistics statistics = sketches.statistics(0);
        assertThat(statistics).isEqualTo(InputStatistics.of(0, 0, 0));
        assertThat(sketches.averageRowBytes()).isZero();
    }

    private static int indexOf(HeavyHitters heavy, long hash) {
        for (int i = 0; i < heavy.size(); i++) {
            if (heavy.hash(i) == hash) {
                return i;
            }
        }
        throw new AssertionError("no heavy hitter " + Long.toHexString(hash));
    }
}
