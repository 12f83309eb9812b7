package org.flagos.trace.benchmarks;

/**
 * A CUDA program that knows nothing of flagtrace, for the agent on the GPU: {@code ROUNDS} rounds of
 * 1,000 four-byte memsets and a synchronize, a pause of {@code PAUSE_MS} between rounds; prints one
 * line and exits 0. Run as {@code java -javaagent:flagtrace.jar=trace=T.json ... PlainCudaProgram 20 50}.
 */
public final class PlainCudaProgram {
    private PlainCudaProgram() {
    }

    public static void main(String[] args) throws InterruptedException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        long pauseMs = args.length > 1 ? Long.parseLong(args[1]) : 50;
        try (CudaMemsetLoop loop = CudaMemsetLoop.open(0)) {
            for (int r = 0; r < rounds; r++) {
                loop.launch(1_000);
                Thread.sleep(pauseMs);
            }
        }
        System.out.println("plain CUDA program: " + rounds + " rounds of 1000 memsets done");
    }
}
