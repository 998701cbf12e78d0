package dev.spilljoin.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code spilljoin join} command's key typing against PostgreSQL's exact {@code numeric}: CSV files whose keys are
 * integers beyond BIGINT, or BIGINTs beside decimals, joined through the CLI's own code path ({@link Main#run}), give
 * the same pairs of rows as PostgreSQL joining the same keys as {@code numeric}, and every integer key is written back
 * as it was read. Each row carries a unique tag, so rows are compared by their tags.
 */
@ExtendWith(PostgresExtension.class)
class ExactKeysPostgresTest {
    @TempDir
    Path dir;

    @Test
    void integersBeyondBigintMatchExactlyAsNumeric(PostgresServer server) throws Exception {
        List<String> left = List.of("9223372036854775807", "12345678901234567890", "1", "-9223372036854775808", "0",
                "-98765432109876543210987654321");
        List<String> right = List.of("9223372036854775808", "12345678901234567890", "12345678901234567891",
                "12345678901234567892", "1", "-9223372036854775809", "-0", "-98765432109876543210987654321");
        List<String> pairs = checkAgainstPostgres(server, left, right);
        assertThat(pairs).as("12345678901234567890 matches itself only, not …891 or …892 (as doubles would)")
                .containsOnlyOnce("l1 r1").doesNotContain("l1 r2", "l1 r3", "l0 r0");
        assertThat(pairs).hasSize(4);
    }

    @Test
    void bigintKeysMatchDecimalKeysOnlyWhenTheyAreTheSameNumber(PostgresServer server) throws Exception {
        List<String> left = List.of("9007199254740993", "9007199254740992", "3", "0", "-5", "1");
        List<String> right = List.of("9007199254740992.0", "1.5", "30e-1", "0.3e1", "-0.0", "-5e0", "NaN",
                "9007199254740993e0", "0.99999999999999999999", "1.00000000000000000001");
        List<String> pairs = checkAgainstPostgres(server, left, right);
        assertThat(pairs).as("2^53 + 1 matches only itself, although 9007199254740992.0 is the same double")
                .contains("l0 r7", "l1 r0").doesNotContain("l0 r0", "l1 r7", "l5 r8", "l5 r9");
        assertThat(pairs).hasSize(6);
    }

    /**
     * Joins {@code leftKeys} and {@code rightKeys} (row i tagged {@code li}/{@code ri}) with spilljoin and with
     * PostgreSQL as numeric; asserts both give the same pairs and that spilljoin wrote every left key as read.
     * Returns the pairs as {@code "li rj"}, sorted.
     */
    private List<String> checkAgainstPostgres(PostgresServer server, List<String> leftKeys, List<String> rightKeys)
            throws IOException, SQLException {
        List<String> spilljoin = spilljoinPairs(leftKeys, rightKeys);
        List<String> postgres = postgresPairs(server, leftKeys, rightKeys);
        assertThat(spilljoin).isEqualTo(postgres);
        return spilljoin;
    }

    private List<String> spilljoinPairs(List<String> leftKeys, List<String> rightKeys) throws IOException {
        Path left = write("l.csv", "l", leftKeys);
        Path right = write("r.csv", "r", rightKeys);
        Path output = dir.resolve("out.csv");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"join", "--left", left.toString(), "--right", right.toString(), "--on", "id",
            "--output", output.toString(), "--spill-dir", dir.toString(), "--quiet"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        List<String> lines = Files.readAllLines(output);
        assertThat(lines.get(0)).isEqualTo("left.id,left.tag,right.id,right.tag");
        Map<String, String> leftKeyOf = new HashMap<>();
        for (int i = 0; i < leftKeys.size(); i++) {
            leftKeyOf.put("l" + i, leftKeys.get(i).equals("-0") ? "0" : leftKeys.get(i));
        }
        List<String> pairs = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] fields = line.split(",", -1);
            assertThat(fields[0]).as("the left key written back as read").isEqualTo(leftKeyOf.get(fields[1]));
            pairs.add(fields[1] + " " + fields[3]);
        }
        pairs.sort(null);
        Files.delete(output);
        return pairs;
    }

    private Path write(String name, String tagPrefix, List<String> keys) throws IOException {
        StringBuilder csv = new StringBuilder("id,tag\n");
        for (int i = 0; i < keys.size(); i++) {
            csv.append(keys.get(i)).append(',').append(tagPrefix).append(i).append('\n');
        }
        return Files.writeString(dir.resolve(name), csv);
    }

    private static List<String> postgresPairs(PostgresServer server, List<String> leftKeys, List<String> rightKeys)
            throws SQLException {
        Properties properties = new Properties();
        if (server.user() != null) {
            properties.setProperty("user", server.user());
        }
        if (server.password() != null) {
            properties.setProperty("password", server.password());
        }
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(), properties);
             Statement s = c.createStatement()) {
            s.execute("CREATE TEMP TABLE l (id numeric, tag text)");
            s.execute("CREATE TEMP TABLE r (id numeric, tag text)");
            insert(c, "l", leftKeys);
            insert(c, "r", rightKeys);
            List<String> pairs = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT l.tag, r.tag FROM l JOIN r ON l.id = r.id")) {
                while (rs.next()) {
                    pairs.add(rs.getString(1) + " " + rs.getString(2));
                }
            }
            pairs.sort(null);
            return pairs;
        }
    }

    private static void insert(Connection c, String table, List<String> keys) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + " VALUES (?::numeric, ?)")) {
            for (int i = 0; i < keys.size(); i++) {
                insert.setString(1, keys.get(i));
                insert.setString(2, table + i);
                insert.executeUpdate();
            }
        }
    }
}
