package org.flagos.trace.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/** A run's control socket for the start and stop commands' tests: one connection, one line read, one answer. */
final class FakeRunSocket {
    /** Accepts one connection on {@code server}, reads a line, answers {@code answer}; completes with the line read. */
    static CompletableFuture<String> answerOnce(ServerSocketChannel server, String answer) {
        return CompletableFuture.supplyAsync(() -> {
            try (SocketChannel c = server.accept()) {
                ByteArrayOutputStream line = new ByteArrayOutputStream();
                ByteBuffer b = ByteBuffer.allocate(1);
                while (c.read(b) > 0 && b.get(0) != '\n') {
                    line.write(b.get(0));
                    b.clear();
                }
                c.write(ByteBuffer.wrap((answer + "\n").getBytes(StandardCharsets.UTF_8)));
                return line.toString(StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
    }

    private FakeRunSocket() {
    }
}
