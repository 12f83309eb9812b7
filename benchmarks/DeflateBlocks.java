import java.nio.file.*; import java.util.zip.*;
/** Deflate at level 1 in blocks of 256 KiB and 1 MiB, with and without the previous 32 KiB as dictionary; CRC32 and arraycopy rates; thread CPU time. java benchmarks/DeflateBlocks.java TRACE_SAMPLE */
public class DeflateBlocks {
  public static void main(String[] a) throws Exception {
    byte[] data = Files.readAllBytes(Path.of(a[0]));
    int[] blocks = {1<<18, 1<<20};
    for (int round = 0; round < 3; round++) for (int block : blocks) for (int dict = 0; dict < 2; dict++) {
      Deflater d = new Deflater(1, true); byte[] out = new byte[block + block/8 + 64];
      long t0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime(), total = 0;
      for (int off = 0; off + block <= data.length; off += block) {
        d.reset(); if (dict == 1 && off > 0) d.setDictionary(data, off - 32768, 32768);
        d.setInput(data, off, block);
        int n = 0; while (true) { int k = d.deflate(out, 0, out.length, Deflater.SYNC_FLUSH); total += k; if (k < out.length) break; }
      }
      long t1 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
      System.out.printf("block %d dict %d: %.0f MB/s ratio %.2f%n", block, dict, data.length / 1e6 / ((t1-t0)/1e9), (double) data.length / total);
    }
    for (int r = 0; r < 3; r++) { long t0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime(); CRC32 c = new CRC32(); c.update(data, 0, data.length); long t1 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
      System.out.printf("crc32 %.0f MB/s%n", data.length/1e6/((t1-t0)/1e9)); }
    for (int r = 0; r < 3; r++) { long t0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime(); byte[] dst = new byte[1<<18]; for (int off = 0; off + dst.length <= data.length; off += dst.length) System.arraycopy(data, off, dst, 0, dst.length); long t1 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
      System.out.printf("copy %.0f MB/s%n", data.length/1e6/((t1-t0)/1e9)); }
  }
}
