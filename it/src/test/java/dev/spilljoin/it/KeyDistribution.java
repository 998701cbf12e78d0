package dev.spilljoin.it;

import dev.spilljoin.workloads.ZipfDistribution;
import java.util.SplittableRandom;

/**
 * How the key ids of the two inputs are drawn ({@link #leftId}/{@link #rightId} of row {@code i} of
 * {@code n} rows over a domain sized from the left input); {@link KeyShape} turns an id into key column values.
 */
enum KeyDistribution {
    /** Both sides uniform over as many ids as the left side has rows: about one match per row. */
    UNIFORM,
    /** Left ids Zipf(s = 1.1) (the hottest id ≈ 10% of the rows), right ids each id once: skewed foreign keys. */
    ZIPF,
    /** Every row of both sides has the same key: the output is the full cross product. */
    ONE_KEY,
    /** Left ids and right ids never overlap: nothing matches. */
    DISJOINT,
    /** Few ids (one per 8 left rows) on both sides: every key has several rows on each side. */
    MANY_TO_MANY;

    private static final double ZIPF_S = 1.1;

    /** A sampler of this distribution for a left input of {@code leftRows} rows. */
    Sampler sampler(int leftRows) {
        int domain = switch (this) {
            case UNIFORM, ZIPF, DISJOINT -> Math.max(1, leftRows);
            case ONE_KEY -> 1;
            case MANY_TO_MANY -> Math.max(1, leftRows / 8);
        };
        return new Sampler(this, domain);
    }

    /** Draws key ids; holds the Zipf table when needed (a Zipf id is its rank minus one). */
    static final class Sampler {
        private final KeyDistribution distribution;
        private final int domain;
        private final ZipfDistribution zipf;

        private Sampler(KeyDistribution distribution, int domain) {
            this.distribution = distribution;
            this.domain = domain;
            this.zipf = distribution == ZIPF ? ZipfDistribution.ofExponent(domain, ZIPF_S) : null;
        }

        long leftId(int row, SplittableRandom random) {
            return switch (distribution) {
                case UNIFORM, DISJOINT, MANY_TO_MANY -> random.nextInt(domain);
                case ZIPF -> zipf.rank(random.nextDouble()) - 1;
                case ONE_KEY -> 7;
            };
        }

        long rightId(int row, SplittableRandom random) {
            return switch (distribution) {
                case UNIFORM, MANY_TO_MANY -> random.nextInt(domain);
                case ZIPF -> row % domain;
                case ONE_KEY -> 7;
                case DISJOINT -> domain + random.nextInt(domain);
            };
        }
    }
}
