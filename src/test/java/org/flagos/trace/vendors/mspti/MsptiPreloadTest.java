package org.flagos.trace.vendors.mspti;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** libmspti.so counts as preloaded only when a mapped file is named exactly it (or a versioned soname of it). */
class MsptiPreloadTest {
    private static final String MAPS = String.join("\n",
            "55d0c4a00000-55d0c4a02000 r--p 00000000 08:01 1311 /usr/bin/python3.10",
            "7f1e2c000000-7f1e2c021000 rw-p 00000000 00:00 0 ",
            "7f1e2d400000-7f1e2d5b0000 r-xp 00000000 08:01 4242 /usr/lib/x86_64-linux-gnu/libc.so.6",
            "7ffd1a3f0000-7ffd1a411000 rw-p 00000000 00:00 0                          [stack]");

    private static String with(String path) {
        return MAPS + "\n7f1e2e000000-7f1e2e100000 r-xp 00000000 08:01 777                        " + path + "\n";
    }

    @Test
    void theLibraryOrAVersionedSonameIsFound() {
        assertTrue(MsptiPreload.mapsHoldMspti(with("/usr/local/Ascend/ascend-toolkit/latest/lib64/libmspti.so")));
        assertTrue(MsptiPreload.mapsHoldMspti(with("/opt/cann/lib64/libmspti.so.1")));
        assertTrue(MsptiPreload.mapsHoldMspti(with("/opt/cann/lib64/libmspti.so (deleted)")), "replaced on disk, still mapped");
        assertTrue(MsptiPreload.mapsHoldMspti(with("/opt/my dir/libmspti.so")), "a path with a space");
    }

    @Test
    void otherFilesAndAnonymousMappingsAreNot() {
        assertFalse(MsptiPreload.mapsHoldMspti(MAPS));
        assertFalse(MsptiPreload.mapsHoldMspti(""));
        assertFalse(MsptiPreload.mapsHoldMspti(with("/opt/cann/lib64/libmspti.so.bak/other.so")));
        assertFalse(MsptiPreload.mapsHoldMspti(with("/opt/cann/lib64/libmspti_stub.so")));
        assertFalse(MsptiPreload.mapsHoldMspti(with("/opt/cann/lib64/xlibmspti.so")));
        assertFalse(MsptiPreload.mapsHoldMspti(with("/opt/libmspti.so/libc.so.6")), "a directory of that name");
        assertFalse(MsptiPreload.mapsHoldMspti(with("[anon:libmspti.so]")), "no path");
    }

    @Test
    void thisJvmsOwnMapsHaveNoMspti() throws Exception {
        String maps = Files.readString(Path.of("/proc/self/maps"));
        assertTrue(maps.contains("/libjvm.so"), "a real link map");
        assertFalse(MsptiPreload.mapsHoldMspti(maps));
        assertFalse(MsptiPreload.preloaded());
        assertTrue(MsptiPreload.mapsHoldMspti(maps + with("/x/libmspti.so")));
    }
}
