package org.flagos.trace.vendors.cupti;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** A context's device as its device records told it; device 0 for a context not seen or past the table. */
class CuptiContextDevicesTest {
    @Test
    void eachContextKeepsTheDeviceLastNoted() {
        CuptiContextDevices devices = new CuptiContextDevices();
        devices.note(1, 3);
        devices.note(2, 0);
        devices.note(255, 7);
        assertEquals(3, devices.device(1));
        assertEquals(0, devices.device(2));
        assertEquals(7, devices.device(255), "the table's last context");
        devices.note(1, 5);
        assertEquals(5, devices.device(1), "a later note wins");
    }

    @Test
    void unknownOrOutOfRangeContextsAreDeviceZero() {
        CuptiContextDevices devices = new CuptiContextDevices();
        assertEquals(0, devices.device(4), "not seen yet");
        devices.note(256, 6); // past the table: ignored
        devices.note(-1, 6);
        assertEquals(0, devices.device(256));
        assertEquals(0, devices.device(-1));
        assertEquals(0, devices.device(Integer.MAX_VALUE));
        devices.note(0, 6);
        assertEquals(6, devices.device(0), "context 0 is a valid slot");
    }
}
