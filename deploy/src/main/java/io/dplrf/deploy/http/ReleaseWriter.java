package io.dplrf.deploy.http;

import io.dplrf.deploy.io.Json;
import io.dplrf.deploy.io.Npy;
import io.dplrf.release.Factorization;
import io.dplrf.sketch.matrix.Dense;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Writes a {@link ServedRelease} as a JSON document or as a zip of npy files, streaming: U and V are
 * written row by row to the response, never built as one string (an m×k factor of a large matrix
 * is hundreds of megabytes of text).
 *
 * <p>JSON: {@code {"epoch", "from", "to", "k", "rows", "cols", "releasedAt", "S": [k],
 * "U": [[k] × m], "V": [[k] × n], "utility": {...}, "metadata": {...}}}, numbers as
 * {@code Double.toString} (shortest round-trip form). Zip: {@code U.npy} (m×k), {@code S.npy} (k),
 * {@code V.npy} (n×k) in the layout of {@code dplrf factorize}, and {@code release.json} (the JSON
 * document without U, S, V).
 */
final class ReleaseWriter {
  static final String ZIP = "application/zip";
  /** The media type a client asks for the zip of .npy files by ({@code Accept}). */
  static final String NPY = "application/x-npy";

  private ReleaseWriter() {}

  /** The document without the matrices: epochs, shapes, time, utility, metadata. */
  static Map<String, Object> header(ServedRelease r) {
    Factorization f = r.factorization();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("epoch", r.epoch());
    m.put("from", r.from());
    m.put("to", r.to());
    m.put("k", f.k());
    m.put("rows", f.rows());
    m.put("cols", f.cols());
    m.put("releasedAt", r.releasedAt().toString());
    return m;
  }

  static void json(ServedRelease r, OutputStream out) throws IOException {
    Writer w = new OutputStreamWriter(out, StandardCharsets.US_ASCII); // Json writes pure ASCII
    Factorization f = r.factorization();
    w.write("{");
    for (Map.Entry<String, Object> e : header(r).entrySet()) {
      w.write(Json.write(e.getKey()) + ": " + Json.write(e.getValue()) + ",\n");
    }
    w.write("\"S\": ");
    vector(w, f.s(), 0, f.k());
    w.write(",\n\"U\": ");
    matrix(w, f.u());
    w.write(",\n\"V\": ");
    matrix(w, f.v());
    w.write(",\n\"utility\": ");
    w.write(Json.write(r.utility().toJsonFields()));
    w.write(",\n\"metadata\": ");
    w.write(Json.write(r.metadata()));
    w.write("}\n");
    w.flush();
  }

  private static void matrix(Writer w, Dense d) throws IOException {
    int k = d.cols();
    double[] data = d.data();
    w.write("[");
    for (int i = 0; i < d.rows(); i++) {
      w.write(i == 0 ? "\n" : ",\n");
      vector(w, data, i * k, k);
    }
    w.write("]");
  }

  private static void vector(Writer w, double[] data, int offset, int length) throws IOException {
    w.write('[');
    for (int l = 0; l < length; l++) {
      if (l > 0) {
        w.write(',');
      }
      w.write(Double.toString(data[offset + l])); // finite: checked by ServedRelease
    }
    w.write(']');
  }

  static void npyZip(ServedRelease r, OutputStream out) throws IOException {
    Factorization f = r.factorization();
    ZipOutputStream zip = new ZipOutputStream(out);
    zip.setLevel(Deflater.BEST_SPEED); // float64 noise barely compresses; don't spend CPU on it
    zip.putNextEntry(new ZipEntry("U.npy"));
    Npy.writeDoubles(zip, f.u().data(), f.rows(), f.k());
    zip.closeEntry();
    zip.putNextEntry(new ZipEntry("S.npy"));
    Npy.writeDoubles(zip, f.s(), f.k());
    zip.closeEntry();
    zip.putNextEntry(new ZipEntry("V.npy"));
    Npy.writeDoubles(zip, f.v().data(), f.cols(), f.k());
    zip.closeEntry();
    Map<String, Object> doc = header(r);
    doc.put("utility", r.utility().toJsonFields());
    doc.put("metadata", r.metadata());
    zip.putNextEntry(new ZipEntry("release.json"));
    zip.write((Json.write(doc) + "\n").getBytes(StandardCharsets.US_ASCII));
    zip.closeEntry();
    zip.finish(); // not close(): the caller owns the response stream
  }
}
