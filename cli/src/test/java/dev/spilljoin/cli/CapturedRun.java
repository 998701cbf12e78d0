package dev.spilljoin.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A command run in process ({@link Main#run}) with its standard output and error captured as UTF-8 text. */
record CapturedRun(int code, String out, String err) {
    /** {@code join} of {@code left} and {@code right} on {@code on}, quiet, spilling to {@code spillDir}, and extra. */
    static CapturedRun join(Path spillDir, Path left, Path right, String on, String... extra) {
        List<String> args = new ArrayList<>(List.of("join", "--left", left.toString(), "--right", right.toString(),
                "--on", on, "--spill-dir", spillDir.toString(), "--quiet"));
        args.addAll(Arrays.asList(extra));
        return of(args.toArray(new String[0]));
    }

    /** The output's lines after the header, sorted. */
    List<String> sortedRows() {
        return out.lines().skip(1).sorted().toList();
    }

    static CapturedRun of(String... args) {
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(outBytes, true, StandardCharsets.UTF_8),
                new PrintStream(errBytes, true, StandardCharsets.UTF_8));
        return new CapturedRun(code, outBytes.toString(StandardCharsets.UTF_8),
                errBytes.toString(StandardCharsets.UTF_8));
    }
}
