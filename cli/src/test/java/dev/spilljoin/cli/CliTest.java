package dev.spilljoin.cli;

import static dev.spilljoin.cli.CsvTestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.HashJoin;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.spill.ByteSize;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line end to end, up to the join: flags, files, columns and types, each error with its exit code. */
class CliTest {
    @TempDir
    Path dir;
    private Path left;
    private Path right;
    private String out;
    private String err;

    @BeforeEach
    void files() {
        left = write(dir, "l.csv", "id,name,score\n1,ann,2.5\n2,bob,\n");
        right = write(dir, "r.csv", "rid,name,flag\n1,x,true\n3,y,false\n");
    }

    @AfterEach
    void noFileLeftBehind() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("l.csv", "r.csv");
        }
    }

    private int run(String... args) {
        CapturedRun run = CapturedRun.of(args);
        out = run.out();
        err = run.err();
        return run.code();
    }

    private int join(String... extra) {
        List<String> args = new ArrayList<>(List.of("join", "--left", left.toString(), "--right", right.toString(),
                "--output", dir.resolve("out.csv").toString(), "--spill-dir", dir.toString()));
        args.addAll(Arrays.asList(extra));
        return run(args.toArray(new String[0]));
    }

    @Test
    void helpOnEachCommand() {
        assertThat(run("--help")).isZero();
        assertThat(out).contains("join").contains("demo").contains("Exit codes");
        assertThat(run("join", "--help")).isZero();
        assertThat(out).contains("--left", "--right", "--on", "--type", "--work-mem", "--output", "--stats",
                "--spill-dir", "--delimiter", "--no-header", "--schema-left", "--schema-right", "--on-error",
                "--quiet", "--threads", "Default: 256MB");
        assertThat(run("demo", "--help")).isZero();
        assertThat(out).contains("--rows", "--work-mem");
    }

    @Test
    void missingCommandOrFlagIsUsage() {
        assertThat(run()).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("missing command");
        assertThat(run("join", "--left", left.toString())).isEqualTo(ExitCodes.USAGE);
        assertThat(err).startsWith("spilljoin join: Missing required options").contains("see 'spilljoin join --help'");
        assertThat(run("join", "--bogus")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.lines().count()).as("one line").isEqualTo(1);
    }

    @Test
    void badValuesAreUsageErrors() {
        assertThat(join("--on", "id=rid", "--type", "cross")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("'cross' is not a join type; use one of inner, left, right, full, semi, anti, not-in");
        assertThat(join("--on", "id=rid", "--on-error", "ignore")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("'ignore' is not fail or skip");
        assertThat(join("--on", "id=rid", "--work-mem", "64")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("--work-mem '64' has no unit");
        assertThat(JoinPlanner.MINIMUM_WORK_MEM).as("the operator's own minimum")
                .isEqualTo(HashJoin.minimumBudget(JoinConfig.DEFAULT)).isGreaterThan(1024);
        assertThat(join("--on", "id=rid", "--work-mem", "1kB")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("--work-mem 1kB is below the minimum of " + ByteSize.format(JoinPlanner.MINIMUM_WORK_MEM)
                + "; give at least that much");
        assertThat(join("--on", "id=rid", "--delimiter", "ab")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("must be exactly one ASCII character");
        assertThat(join("--on", "id=rid,name=name", "--type", "not-in")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("--type not-in takes exactly one key pair, but --on gives 2");
        assertThat(join("--on", "id=rid", "--schema-left", "id:number")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("unknown type 'number'");
    }

    @Test
    void unknownColumnsAreUsageErrorsListingTheColumns() {
        assertThat(join("--on", "idx=rid")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).isEqualTo("spilljoin: --on names column 'idx', which " + left
                + " does not have; its columns are id, name, score\n");
        assertThat(join("--on", "id=rid", "--schema-right", "nope:bigint")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("--schema-right names column 'nope', which " + right + " does not have");
    }

    @Test
    void mismatchedKeyTypesAreUsageErrorsSuggestingASchema() {
        assertThat(join("--on", "id=flag")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("key columns of different types: left 'id' is BIGINT (inferred from the first"
                + " 10000 rows of " + left + "), right 'flag' is BOOLEAN")
                .contains("--schema-left 'id:varchar' --schema-right 'flag:varchar'");
        assertThat(join("--on", "id=flag", "--schema-right", "flag:varchar")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("right 'flag' is VARCHAR (from --schema-right)");
    }

    @Test
    void inputProblemsAreInputErrors() {
        Path missing = dir.resolve("missing.csv");
        assertThat(run("join", "--left", missing.toString(), "--right", right.toString(), "--on", "id=rid"))
                .isEqualTo(ExitCodes.INPUT);
        assertThat(err).isEqualTo("spilljoin: " + missing + " does not exist; check the path\n");
        Path broken = write(dir, "broken.csv", "id,v\n1,2\n\"3,4\n");
        try {
            assertThat(run("join", "--left", broken.toString(), "--right", right.toString(), "--on", "id=rid"))
                    .isEqualTo(ExitCodes.INPUT);
            assertThat(err).contains(broken + " line 3: the quote opened in column 1 ('id') on line 3 is never"
                    + " closed");
        } finally {
            broken.toFile().delete();
        }
    }

    @Test
    void unusableSpillDirectoryIsAResourceError() {
        Path notADirectory = dir.resolve("l.csv");
        assertThat(run("join", "--left", left.toString(), "--right", right.toString(), "--on", "id=rid",
                "--spill-dir", notADirectory.toString())).isEqualTo(ExitCodes.RESOURCES);
        assertThat(err).contains("the spill directory " + notADirectory + " does not exist or is not a directory");
    }

    @Test
    void aValidCommandIsPlannedAndJoined() throws IOException {
        JoinPlan plan = JoinPlanner.plan(new JoinCommandOptions(left, right).on("id=rid").build());
        assertThat(plan.keyTypes()).containsExactly(ColumnType.BIGINT);
        assertThat(plan.left().keyColumns()).containsExactly(0);
        assertThat(plan.right().keyColumns()).containsExactly(0);
        assertThat(plan.left().columnTypes()).containsExactly(ColumnType.BIGINT, null, null);
        assertThat(plan.outputNames()).containsExactly("id", "left.name", "score", "rid", "right.name", "flag");
        assertThat(plan.workMemBytes()).isEqualTo(256L << 20);

        assertThat(join("--on", "id=rid", "--quiet")).isZero();
        assertThat(err).isEmpty();
        Path output = dir.resolve("out.csv");
        assertThat(Files.readString(output)).isEqualTo("id,left.name,score,rid,right.name,flag\n1,ann,2.5,1,x,true\n");
        Files.delete(output);
    }

    @Test
    void allNullKeyColumnTakesItsPartnersTypeAndBigintWithDoubleComparesAsExactText() {
        Path nulls = write(dir, "n.csv", "k,v\n,1\n\"\",2\n");
        Path doubles = write(dir, "d.csv", "k\n1.5\n");
        try {
            assertThat(JoinPlanner.plan(new JoinCommandOptions(nulls, right).on("k=flag").build()).keyTypes())
                    .containsExactly(ColumnType.BOOLEAN);
            assertThat(JoinPlanner.plan(new JoinCommandOptions(nulls, nulls).on("k").build()).keyTypes())
                    .containsExactly(ColumnType.VARCHAR);
            JoinPlan mixed = JoinPlanner.plan(new JoinCommandOptions(left, doubles).on("id=k").build());
            assertThat(mixed.keyTypes()).containsExactly(ColumnType.VARCHAR);
            assertThat(mixed.left().keys().numberText()[0]).as("the BIGINT side is read as integer text")
                    .isEqualTo(NumberText.BIGINT_RANGE);
            assertThat(mixed.right().keys().numberText()[0]).isEqualTo(NumberText.DECIMAL);
            JoinPlan semi = JoinPlanner.plan(new JoinCommandOptions(left, doubles).on("id=k").type(JoinKind.SEMI)
                    .build());
            assertThat(semi.outputNames()).containsExactly("id", "name", "score");
        } finally {
            nulls.toFile().delete();
            doubles.toFile().delete();
        }
    }

    @Test
    void noHeaderNamesColumnsByPosition() {
        JoinPlan plan = JoinPlanner.plan(new JoinCommandOptions(left, right).on("column1=column1").noHeader().build());
        assertThat(plan.left().columnNames()).containsExactly("column1", "column2", "column3");
        assertThat(plan.keyTypes()).as("the header line is data now").containsExactly(ColumnType.VARCHAR);
    }

    /** Builds {@link JoinOptions} with defaults, for planner tests. */
    private static final class JoinCommandOptions {
        private final Path left;
        private final Path right;
        private String on;
        private JoinKind type = JoinKind.INNER;
        private boolean noHeader;

        JoinCommandOptions(Path left, Path right) {
            this.left = left;
            this.right = right;
        }

        JoinCommandOptions on(String value) {
            on = value;
            return this;
        }

        JoinCommandOptions type(JoinKind value) {
            type = value;
            return this;
        }

        JoinCommandOptions noHeader() {
            noHeader = true;
            return this;
        }

        JoinOptions build() {
            return new JoinOptions(left, right, on, type, null, null, null, null, null, noHeader, null, null,
                    OnError.FAIL, true, null, JoinOptions.FormatOptions.BY_EXTENSION, null);
        }
    }
}
