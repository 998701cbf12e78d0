package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OutputColumnsTest {
    private final String[] left = {"id", "name", "amount"};
    private final String[] right = {"id", "city", "name"};

    @Test
    void innerAndOuterJoinsGiveLeftThenRightWithSharedNamesQualified() {
        for (JoinKind kind : new JoinKind[] {JoinKind.INNER, JoinKind.LEFT, JoinKind.RIGHT, JoinKind.FULL}) {
            assertThat(OutputColumns.names(left, right, kind)).containsExactly(
                    "left.id", "left.name", "amount", "right.id", "city", "right.name");
        }
    }

    @Test
    void aPrefixedNameThatIsAlreadyAColumnsNameIsPrefixedAgainUntilUnique() {
        assertThat(OutputColumns.names(new String[] {"id", "left.id", "left.left.id"}, new String[] {"id", "right.id"},
                JoinKind.INNER)).containsExactly("left.left.left.id", "left.id", "left.left.id", "right.right.id",
                        "right.id");
        assertThat(OutputColumns.names(new String[] {"a", "a"}, new String[] {"b"}, JoinKind.LEFT))
                .as("a name the file repeats stays repeated").containsExactly("a", "a", "b");
    }

    @Test
    void semiAntiAndNotInGiveLeftColumnsOnly() {
        for (JoinKind kind : new JoinKind[] {JoinKind.SEMI, JoinKind.ANTI, JoinKind.NOT_IN}) {
            assertThat(OutputColumns.names(left, right, kind)).containsExactly("id", "name", "amount");
        }
    }

    @Test
    void joinKindsParseAsSpelledOnTheCommandLine() {
        assertThat(JoinKind.parse("not-in")).isEqualTo(JoinKind.NOT_IN);
        assertThat(JoinKind.parse("NOT_IN")).isEqualTo(JoinKind.NOT_IN);
        assertThat(JoinKind.parse("Full")).isEqualTo(JoinKind.FULL);
        assertThatThrownBy(() -> JoinKind.parse("cross"))
                .isInstanceOf(UsageException.class)
                .hasMessage("'cross' is not a join type; use one of inner, left, right, full, semi, anti, not-in");
    }
}
