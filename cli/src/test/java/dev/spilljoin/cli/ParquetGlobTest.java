package dev.spilljoin.cli;

import static dev.spilljoin.cli.ParquetTestFiles.column;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Parquet input given as a glob in any path element ({@link ParquetInput#partFiles}), as Hive lays out partitions
 * ({@code data/year=*}{@code /part-*.parquet}): the matches in path order; names starting with {@code _} or
 * {@code .} skipped at every level ({@code _temporary}, {@code .crc}); symbolic links to directories not entered
 * below the first glob element; a clear message when nothing matches or for {@code **}; and end to end, every part
 * file read, and each one counted by the output clash check.
 */
class ParquetGlobTest {
    @TempDir
    Path dir;
    private Path data;

    /**
     * {@code data/year=2023/part-0}, {@code data/year=2024/part-0} and {@code part-1} (keys 1, 2, 3), beside a
     * {@code _SUCCESS}, a {@code .crc}, an empty {@code year=2025}, a {@code _temporary} and a {@code .hidden}
     * directory holding part files that must not be read.
     */
    @BeforeEach
    void hiveLayout() throws IOException {
        data = dir.resolve("data");
        part(data.resolve("year=2023/part-0.parquet"), 1L);
        part(data.resolve("year=2024/part-0.parquet"), 2L);
        part(data.resolve("year=2024/part-1.parquet"), 3L);
        Files.writeString(data.resolve("year=2024/_SUCCESS"), "");
        Files.writeString(data.resolve("year=2024/.part-0.parquet.crc"), "crc");
        Files.createDirectories(data.resolve("year=2025"));
        part(data.resolve("_temporary/0/part-9.parquet"), 9L);
        part(data.resolve(".hidden/part-8.parquet"), 8L);
    }

    private static void part(Path file, long key) throws IOException {
        List<PrimitiveType> types = List.of(column("k", PrimitiveTypeName.INT64, null));
        ParquetTestFiles.write(file, types, new Object[] {key});
    }

    private List<Path> expected() {
        return List.of(data.resolve("year=2023/part-0.parquet"), data.resolve("year=2024/part-0.parquet"),
                data.resolve("year=2024/part-1.parquet"));
    }

    @Test
    void aGlobInAnyPathElementMatchesThePartFilesInPathOrder() {
        assertThat(ParquetInput.partFiles("left", data.resolve("year=*/part-*.parquet"))).isEqualTo(expected());
        assertThat(ParquetInput.partFiles("left", data.resolve("*/part-*.parquet"))).as("_ and . directories skipped")
                .isEqualTo(expected());
        assertThat(ParquetInput.partFiles("left", data.resolve("year=202[34]/*"))).as("_SUCCESS and .crc skipped")
                .isEqualTo(expected());
        assertThat(ParquetInput.partFiles("left", data.resolve("year=*/part-0.parquet")))
                .containsExactly(data.resolve("year=2023/part-0.parquet"), data.resolve("year=2024/part-0.parquet"));
        assertThat(ParquetInput.partFiles("left", dir.resolve("d*/year=2024/part-1.parquet")))
                .containsExactly(data.resolve("year=2024/part-1.parquet"));
    }

    @Test
    void aFileOrDirectoryWhosePathHoldsGlobCharactersIsItself() throws IOException {
        Path file = dir.resolve("runs[1]/part-0.parquet");
        part(file, 4L);
        part(dir.resolve("runs1/part-0.parquet"), 5L);
        assertThat(ParquetInput.partFiles("left", file)).containsExactly(file);
        assertThat(ParquetInput.partFiles("left", file.getParent())).containsExactly(file);
        assertThat(ParquetInput.partFiles("left", dir.resolve("runs[1]/*.parquet"))).as("a glob: [1] matches 1")
                .containsExactly(dir.resolve("runs1/part-0.parquet"));
    }

    @Test
    void symbolicLinksToDirectoriesAreNotEnteredBelowAGlob() throws IOException {
        Path elsewhere = dir.resolve("elsewhere");
        part(elsewhere.resolve("part-5.parquet"), 5L);
        Files.createSymbolicLink(data.resolve("year=2099"), elsewhere);
        Files.createDirectories(data.resolve("year=2024/sub"));
        part(data.resolve("year=2024/sub/part-6.parquet"), 6L);
        Files.createSymbolicLink(data.resolve("year=2023/sub"), elsewhere);

        assertThat(ParquetInput.partFiles("left", data.resolve("year=*/part-*.parquet"))).isEqualTo(expected());
        assertThat(ParquetInput.partFiles("left", data.resolve("year=*/sub/part-*.parquet")))
                .containsExactly(data.resolve("year=2024/sub/part-6.parquet"));
        Path linkedBase = Files.createSymbolicLink(dir.resolve("linked"), data);
        assertThat(ParquetInput.partFiles("left", linkedBase.resolve("year=2023/*.parquet"))).as("a link above the"
                + " first glob is the path given").containsExactly(linkedBase.resolve("year=2023/part-0.parquet"));
    }

    @Test
    void aGlobMatchingNothingOrRecursiveSaysWhatToDo() {
        Path none = data.resolve("year=*/none-*.parquet");
        assertThatThrownBy(() -> ParquetInput.partFiles("left", none)).isInstanceOf(InputException.class)
                .hasMessage("--left " + none + " matches no Parquet part file (a glob skips names starting with _"
                        + " or . and does not enter symbolic links to directories); check the path, e.g. with: ls "
                        + none);
        Path missingBase = dir.resolve("nowhere/*/part-*.parquet");
        assertThatThrownBy(() -> ParquetInput.partFiles("right", missingBase)).isInstanceOf(InputException.class)
                .hasMessageStartingWith("--right " + missingBase + " matches no Parquet part file");
        Path recursive = data.resolve("**/part-*.parquet");
        assertThatThrownBy(() -> ParquetInput.partFiles("left", recursive)).isInstanceOf(InputException.class)
                .hasMessage("--left " + recursive + ": '**' (any depth) is not supported in a glob; write one '*'"
                        + " per directory level, e.g. data/*/*/part-*.parquet");
    }

    @Test
    void aJoinReadsEveryMatchedPartFileAndRefusesToOverwriteOne() throws IOException {
        Path right = CsvTestFiles.write(dir, "r.csv", "k,v\n1,one\n2,two\n3,three\n8,eight\n9,nine\n");
        String glob = data.resolve("year=*/part-*.parquet").toString();
        CapturedRun run = CapturedRun.join(dir, Path.of(glob), right, "k");
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.sortedRows()).containsExactly("1,1,one", "2,2,two", "3,3,three");

        Path partFile = data.resolve("year=2024/part-1.parquet");
        byte[] before = Files.readAllBytes(partFile);
        run = CapturedRun.join(dir, Path.of(glob), right, "k", "--output", partFile.toString());
        assertThat(run.code()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).isEqualTo("spilljoin: --output " + partFile + " is the part file " + partFile
                + " of the input --left " + glob + "; writing it would destroy the input: write the result to"
                + " another file\n");
        assertThat(Files.readAllBytes(partFile)).isEqualTo(before);
    }
}
