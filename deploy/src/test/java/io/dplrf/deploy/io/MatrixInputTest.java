package io.dplrf.deploy.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.io.MatrixInput.Dimensions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MatrixInputTest {
  @TempDir Path dir;

  private Path file(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
  }

  private static List<String> updates(MatrixInput in) throws InputException {
    List<String> out = new ArrayList<>();
    in.forEach((i, j, d) -> out.add(i + "," + j + "," + d));
    return out;
  }

  /**
   * forEachRecord leaves values' and indices' validity to the sink (with the line number): NaN,
   * inf and overflowing literals arrive as non-finite values, indices below the base as negative
   * ones; a line that is not a record still fails the read.
   */
  @Test
  void forEachRecord_deliversNonFiniteValuesAndNegativeIndices_butNotMalformedLines()
      throws Exception {
    List<String> out = new ArrayList<>();
    MatrixInput.open(file("r.csv", "0,1,2\n# c\n1,2,NaN\n-1,0,3\n2,-4,-inf\n3,3,1e999\n"))
        .forEachRecord((line, i, j, v) -> out.add(line + ":" + i + "," + j + "," + v));
    assertEquals(List.of("1:0,1,2.0", "3:1,2,NaN", "4:-1,0,3.0", "5:2,-4,-Infinity",
        "6:3,3,Infinity"), out);
    List<String> mm = new ArrayList<>();
    MatrixInput.open(file("r.mtx", """
        %%MatrixMarket matrix coordinate real general
        3 3 2
        1 2 nan
        0 1 4
        """)).forEachRecord((line, i, j, v) -> mm.add(line + ":" + i + "," + j + "," + v));
    assertEquals(List.of("3:0,1,NaN", "4:-1,0,4.0"), mm);
    InputException e = assertThrows(InputException.class, () -> MatrixInput.open(
        file("bad.csv", "0,1,2\n1,x,3\n")).forEachRecord((line, i, j, v) -> { }));
    assertTrue(e.getMessage().contains("bad.csv:2"), e.getMessage());
    assertThrows(InputException.class, () -> MatrixInput.open(file("bad2.csv", "0,1,abc\n"))
        .forEachRecord((line, i, j, v) -> { }));
    assertThrows(InputException.class, () -> updates(MatrixInput.open(
        file("strict.csv", "0,1,NaN\n"))), "forEach stays strict");
  }

  @Test
  void mtxCoordinateReal_isOneBasedAndKeepsHeaderDims() throws Exception {
    MatrixInput in = MatrixInput.open(file("a.mtx", """
        %%MatrixMarket matrix coordinate real general
        % a comment
        %
        3 4 3
        1 1 1.5
        3 4 -2e-1

        2 3   7
        """));
    assertEquals(OptionalInt.of(3), in.rows());
    assertEquals(OptionalInt.of(4), in.cols());
    assertEquals(new Dimensions(3, 4), in.scanDimensions());
    assertEquals(List.of("0,0,1.5", "2,3,-0.2", "1,2,7.0"), updates(in));
  }

  @Test
  void mtxArray_isColumnMajorAndKeepsZeros() throws Exception {
    MatrixInput in = MatrixInput.open(file("a.mtx", """
        %%MatrixMarket matrix array real general
        2 3
        1
        2
        3
        0
        5
        6.5D0
        """));
    assertEquals(List.of("0,0,1.0", "1,0,2.0", "0,1,3.0", "1,1,0.0", "0,2,5.0", "1,2,6.5"),
        updates(in));
  }

  @Test
  void mtxInteger_parsesIntegers() throws Exception {
    MatrixInput in = MatrixInput.open(file("a.mtx", """
        %%MatrixMarket MATRIX Coordinate INTEGER General
        2 2 2
        1 2 -3
        2 1 9007199254740993
        """));
    assertEquals(List.of("0,1,-3.0", "1,0,9.007199254740992E15"), updates(in));
  }

  @Test
  void mtxSymmetricCoordinate_emitsMirrorOffDiagonalOnly() throws Exception {
    MatrixInput in = MatrixInput.open(file("s.mtx", """
        %%MatrixMarket matrix coordinate real symmetric
        3 3 2
        2 2 4
        3 1 5
        """));
    assertEquals(List.of("1,1,4.0", "2,0,5.0", "0,2,5.0"), updates(in));
  }

  @Test
  void mtxSymmetricArray_readsLowerTriangleColumnMajor() throws Exception {
    MatrixInput in = MatrixInput.open(file("s.mtx", """
        %%MatrixMarket matrix array real symmetric
        2 2
        1
        2
        3
        """));
    assertEquals(List.of("0,0,1.0", "1,0,2.0", "0,1,2.0", "1,1,3.0"), updates(in));
  }

  @Test
  void mtxSkewSymmetric_negatesMirror() throws Exception {
    MatrixInput coordinate = MatrixInput.open(file("k.mtx", """
        %%MatrixMarket matrix coordinate real skew-symmetric
        2 2 1
        2 1 3
        """));
    assertEquals(List.of("1,0,3.0", "0,1,-3.0"), updates(coordinate));
    MatrixInput array = MatrixInput.open(file("k2.mtx", """
        %%MatrixMarket matrix array real skew-symmetric
        3 3
        1
        2
        3
        """));
    assertEquals(List.of("1,0,1.0", "0,1,-1.0", "2,0,2.0", "0,2,-2.0", "2,1,3.0", "1,2,-3.0"),
        updates(array));
  }

  @Test
  void mtxPattern_givesDeltaOne() throws Exception {
    MatrixInput in = MatrixInput.open(file("p.mtx", """
        %%MatrixMarket matrix coordinate pattern general
        2 2 2
        1 2
        2 1
        """));
    assertEquals(List.of("0,1,1.0", "1,0,1.0"), updates(in));
  }

  @Test
  void mtxBannerIsSniffedWhateverTheExtension() throws Exception {
    MatrixInput in = MatrixInput.open(file("m.txt", """
        %%MatrixMarket matrix coordinate real general
        1 1 1
        1 1 2
        """));
    assertEquals(OptionalInt.of(1), in.rows());
    assertEquals(List.of("0,0,2.0"), updates(in));
  }

  @Test
  void csv_allowsWhitespaceCommentsBlankLinesAndBom() throws Exception {
    MatrixInput in = MatrixInput.open(file("a.csv", "\uFEFF# header comment\n"
        + "0,0,1.5\n\n  3 , 7 ,-2   # trailing\r\n1,2,+1e3\n"));
    assertEquals(OptionalInt.empty(), in.rows());
    assertEquals(OptionalInt.empty(), in.cols());
    assertEquals(List.of("0,0,1.5", "3,7,-2.0", "1,2,1000.0"), updates(in));
  }

  @Test
  void csvScanDimensions_isMaxIndexPlusOne() throws Exception {
    assertEquals(new Dimensions(10, 4),
        MatrixInput.open(file("a.csv", "9,0,1\n0,3,1\n2,2,-1\n")).scanDimensions());
    assertEquals(new Dimensions(0, 0), MatrixInput.open(file("e.csv", "# nothing\n"))
        .scanDimensions());
  }

  @Test
  void forEachWithBounds_acceptsIndicesInside() throws Exception {
    MatrixInput in = MatrixInput.open(file("a.csv", "1,2,1\n"));
    List<String> out = new ArrayList<>();
    in.forEach(2, 3, (i, j, d) -> out.add(i + "," + j));
    assertEquals(List.of("1,2"), out);
  }

  static Stream<Arguments> malformedFiles() {
    return Stream.of(
        Arguments.of("h.csv", "row,col,value\n0,0,1\n", 1, "no header"),
        Arguments.of("f.csv", "0,0,1\n# c\n0,1\n", 3, "expected 3 fields"),
        Arguments.of("f4.csv", "0,0,1,2\n", 1, "expected 3 fields"),
        Arguments.of("i.csv", "0,0,1\n1.5,0,1\n", 2, "row index is not an integer"),
        Arguments.of("n.csv", "0,-1,1\n", 1, "column index -1 out of range"),
        Arguments.of("big.csv", "0,99999999999,1\n", 1, "out of range"),
        Arguments.of("nan.csv", "0,0,1\n0,0,NaN\n", 2, "not finite"),
        Arguments.of("inf.csv", "0,0,-Infinity\n", 1, "not finite"),
        Arguments.of("ovf.csv", "0,0,1e400\n", 1, "not finite"),
        Arguments.of("hex.csv", "0,0,0x1p3\n", 1, "not a number"),
        Arguments.of("sfx.csv", "0,0,1.0f\n", 1, "not a number"),
        Arguments.of("nobanner.mtx", "3 3 1\n1 1 1\n", 1, "%%MatrixMarket"),
        Arguments.of("c.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 0\n", 1,
            "complex"),
        Arguments.of("herm.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1,
            "hermitian"),
        Arguments.of("b.mtx", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "5 words"),
        Arguments.of("v.mtx", "%%MatrixMarket vector coordinate real general\n", 1, "vector"),
        Arguments.of("pa.mtx", "%%MatrixMarket matrix array pattern general\n", 1, "pattern"),
        Arguments.of("nosize.mtx", "%%MatrixMarket matrix coordinate real general\n%\n", 2,
            "missing size line"),
        Arguments.of("size.mtx", "%%MatrixMarket matrix coordinate real general\n2 2\n", 2,
            "size line"),
        Arguments.of("sq.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", 2,
            "square"),
        Arguments.of("zero.mtx", mtx("1 0 5"), 5, "column index 0 out of range"),
        Arguments.of("hi.mtx", mtx("3 1 5"), 5, "row index 3 out of range: valid is 1..2"),
        Arguments.of("many.mtx", mtx("1 1 1\n2 2 2"), 6, "too many entries"),
        Arguments.of("few.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n"
            + "% trailing comment\n", 4, "too few entries: the size line declares 3, found 1"),
        Arguments.of("fewarr.mtx", "%%MatrixMarket matrix array real general\n1 2\n1\n", 3,
            "too few entries"),
        Arguments.of("fields.mtx", mtx("1 1"), 5, "expected 3 fields"),
        Arguments.of("int.mtx", "%%MatrixMarket matrix coordinate integer general\n1 1 1\n"
            + "1 1 1.5\n", 3, "not an integer"),
        Arguments.of("nanm.mtx", mtx("1 1 nan"), 5, "not finite"),
        Arguments.of("upper.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n"
            + "1 2 1\n", 3, "not below the diagonal"),
        Arguments.of("arr2.mtx", "%%MatrixMarket matrix array real general\n1 1\n1 2\n", 3,
            "expected 1 value"));
  }

  /** A general 2x2 coordinate file with one valid entry on line 4, then {@code last} on line 5. */
  private static String mtx(String last) {
    return "%%MatrixMarket matrix coordinate real general\n% c\n2 2 2\n1 1 1\n" + last + "\n";
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformedFiles")
  void malformedInput_givesOneLineMessageNamingFileAndLine(
      String name, String content, int line, String what) throws Exception {
    Path f = file(name, content);
    InputException e = assertThrows(InputException.class, () -> updates(MatrixInput.open(f)));
    assertOneLine(e, f + ":" + line + ": ", what);
  }

  @Test
  void indexOutsideGivenBounds_isRejectedBeforeTheSinkSeesIt() throws Exception {
    Path csv = file("b.csv", "0,0,1\n2,0,1\n");
    List<String> seen = new ArrayList<>();
    InputException e = assertThrows(InputException.class,
        () -> MatrixInput.open(csv).forEach(2, 2, (i, j, d) -> seen.add(i + "," + j)));
    assertOneLine(e, csv + ":2: ", "row index 2 out of range: valid is 0..1");
    assertEquals(List.of("0,0"), seen);

    Path mtx = file("b.mtx", mtx("2 2 1"));
    e = assertThrows(InputException.class, () -> MatrixInput.open(mtx).forEach(1, 5, (i, j, d) -> {
    }));
    assertOneLine(e, mtx + ":5: ", "row index 2 out of range: valid is 1..1");
  }

  @Test
  void missingFile_givesOneLineMessageNamingFile() {
    Path f = dir.resolve("missing.csv");
    InputException e = assertThrows(InputException.class, () -> MatrixInput.open(f));
    assertOneLine(e, f + ": ", "no such file");
    e = assertThrows(InputException.class, () -> MatrixInput.open(dir));
    assertOneLine(e, dir + ": ", "is a directory");
  }

  @Test
  void fileDeletedAfterOpen_givesOneLineMessageNamingFile() throws Exception {
    Path f = file("gone.csv", "0,0,1\n");
    MatrixInput in = MatrixInput.open(f);
    Files.delete(f);
    InputException e = assertThrows(InputException.class, () -> updates(in));
    assertOneLine(e, f + ": ", "no such file");
  }

  private static void assertOneLine(InputException e, String prefix, String what) {
    String m = e.getMessage();
    assertTrue(m.startsWith(prefix), () -> "expected prefix " + prefix + " in: " + m);
    assertTrue(m.contains(what), () -> "expected '" + what + "' in: " + m);
    assertFalse(m.contains("\n") || m.contains("\r"), () -> "not one line: " + m);
  }
}
