package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Columns whose header names are not valid UTF-8, or hold a backslash, named by the user as messages print them. */
class ColumnNameSpellingTest {
    @TempDir
    Path dir;

    private Path write(String name, byte[]... lines) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (byte[] line : lines) {
            bytes.writeBytes(line);
            bytes.write('\n');
        }
        return Files.write(dir.resolve(name), bytes.toByteArray());
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private CapturedRun join(Path left, Path right, String... extra) {
        String[] args = {"join", "--left", left.toString(), "--right", right.toString(), "--output",
            dir.resolve("out.csv").toString(), "--spill-dir", dir.toString(), "--quiet"};
        String[] all = new String[args.length + extra.length];
        System.arraycopy(args, 0, all, 0, args.length);
        System.arraycopy(extra, 0, all, args.length, extra.length);
        return CapturedRun.of(all);
    }

    @Test
    void aHeaderNameThatIsNotUtf8IsNamedWithItsByteEscape() throws IOException {
        byte[] header = {'i', 'd', ',', 'k', (byte) 0xFF};
        Path left = write("l.csv", header, ascii("1,7"), ascii("2,8"));
        Path right = write("r.csv", ascii("k,w"), ascii("7,x"), ascii("9,y"));

        CapturedRun run = join(left, right, "--on", "k\\xff=k", "--schema-left", "k\\xff:bigint");

        assertThat(run.code()).as(run.err()).isZero();
        byte[] expected = "id,k\u00ff,k,w\n1,7,7,x\n".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(Files.readAllBytes(dir.resolve("out.csv"))).isEqualTo(expected);
    }

    @Test
    void aLiteralBackslashIsDoubledWhereItWouldReadAsAnEscape() throws IOException {
        Path left = write("l.csv", ascii("id,a\\x41"), ascii("1,7"));
        Path right = write("r.csv", ascii("k"), ascii("7"));

        CapturedRun unescaped = join(left, right, "--on", "a\\x41=k");
        assertThat(unescaped.code()).isEqualTo(ExitCodes.USAGE);
        assertThat(unescaped.err()).contains("names column 'aA', which " + left + " does not have; its columns are"
                + " id, a\\\\x41");

        CapturedRun doubled = join(left, right, "--on", "a\\\\x41=k");
        assertThat(doubled.code()).as(doubled.err()).isZero();
        assertThat(Files.readString(dir.resolve("out.csv"))).isEqualTo("id,a\\x41,k\n1,7,7\n");
    }
}
