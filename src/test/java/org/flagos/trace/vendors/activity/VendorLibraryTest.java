package org.flagos.trace.vendors.activity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.flagos.trace.natives.MsptiLibrary;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which library a tracer opens and the one sentence when none loads: an explicit path, else the
 * system property, else the environment variable, else the defaults in order; the first candidate
 * that opens wins; every reason is kept, in order; a shim that cannot load is its own sentence; a
 * real shim's refusal of a missing file comes through.
 */
class VendorLibraryTest {
    @AfterEach
    void clearProperty() {
        System.clearProperty(VendorLibrary.LIBRARY_PROPERTY);
    }

    @Test
    void anExplicitPathWinsThenThePropertyThenTheDefaults() {
        List<String> defaults = List.of("libx.so.1", "libx.so");
        assertEquals(List.of("/opt/x.so"), VendorLibrary.candidates("/opt/x.so", defaults));
        System.setProperty(VendorLibrary.LIBRARY_PROPERTY, "/p/x.so");
        assertEquals(List.of("/p/x.so"), VendorLibrary.candidates(null, defaults));
        assertEquals(List.of("/opt/x.so"), VendorLibrary.candidates("/opt/x.so", defaults), "explicit over the property");
        System.setProperty(VendorLibrary.LIBRARY_PROPERTY, "  ");
        String env = System.getenv(VendorLibrary.LIBRARY_ENV);
        assertEquals(env != null && !env.isBlank() ? List.of(env) : defaults, VendorLibrary.candidates(null, defaults),
                "a blank property is unset");
    }

    /** An opener that opens only {@code good}, writing "no PATH" as the reason for any other. */
    private static VendorLibrary.Opener<BytePointer> only(String good, List<String> tried) {
        return (path, error, length) -> {
            tried.add(path);
            if (path.equals(good)) {
                return new BytePointer("handle");
            }
            error.putString("no " + path);
            return path.startsWith("null") ? new BytePointer((Pointer) null) : null;
        };
    }

    @Test
    void theFirstCandidateThatOpensWins() {
        List<String> tried = new ArrayList<>();
        VendorLibrary<BytePointer> lib = VendorLibrary.open("x", List.of("a", "b", "c"), only("b", tried));
        assertEquals(List.of("a", "b"), tried, "no candidate after the one that opened");
        assertEquals("b", lib.path());
        assertEquals("", lib.failure());
        assertEquals("handle", lib.handle().getString());
    }

    @Test
    void noneOpeningIsOneSentenceWithEveryReasonInOrder() {
        VendorLibrary<BytePointer> lib = VendorLibrary.open("mspti", List.of("a", "nullptr"), only("z", new ArrayList<>()));
        assertNull(lib.handle());
        assertEquals("a, nullptr", lib.path());
        assertEquals("mspti library a, nullptr could not be loaded: no a; no nullptr", lib.failure(),
                "a null pointer handle is a failure too");
    }

    @Test
    void aReasonIsReadToItsTerminatingNulNotToTheEndOfTheBuffer() {
        // as a shim writes it (snprintf into the error buffer): the string and its NUL, whatever lies after
        VendorLibrary<BytePointer> lib = VendorLibrary.open("x", List.of("a", "b"), (path, error, length) -> {
            byte[] junk = new byte[length];
            java.util.Arrays.fill(junk, (byte) 'J');
            error.put(junk);
            byte[] reason = (path + ": cannot open shared object file\0").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            error.put(reason);
            return null;
        });
        assertEquals("x library a, b could not be loaded: a: cannot open shared object file; b: cannot open shared object file",
                lib.failure());
    }

    @Test
    void aShimThatCannotLoadIsItsOwnSentence() {
        UnsatisfiedLinkError missing = new UnsatisfiedLinkError("no jniShim in java.library.path");
        VendorLibrary<BytePointer> lib = VendorLibrary.open("x", List.of("a", "b"), (path, error, length) -> {
            throw missing;
        });
        assertNull(lib.handle());
        assertEquals("a, b", lib.path());
        assertEquals("flagtrace's native shim could not be loaded (" + missing + ")", lib.failure());
    }

    @Test
    void aRealShimsRefusalOfAMissingFileComesThrough() {
        String path = "/nonexistent/flagtrace-test/libmspti.so";
        VendorLibrary<MsptiLibrary.Handle> lib = VendorLibrary.open("mspti", List.of(path), MsptiLibrary::ftm_open);
        assertNull(lib.handle());
        assertEquals(path, lib.path());
        assertTrue(lib.failure().startsWith("mspti library " + path + " could not be loaded: "), lib.failure());
        assertTrue(lib.failure().length() > ("mspti library " + path + " could not be loaded: ").length(),
                "the shim's reason is in the sentence: " + lib.failure());
    }
}
