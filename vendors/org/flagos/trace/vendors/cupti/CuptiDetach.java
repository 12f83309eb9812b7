package org.flagos.trace.vendors.cupti;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bytedeco.cuda.cupti.CUpti_CallbackData;
import org.bytedeco.cuda.cupti.CUpti_CallbackFunc;
import org.bytedeco.cuda.cupti.CUpti_Subscriber_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.cupti;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Pointer;

/**
 * Detaches CUPTI ({@code cuptiFinalize}) the one way NVIDIA documents as safe for a process that
 * keeps running: from inside the exit callback of a runtime API call. Called from an ordinary
 * thread, {@code cuptiFinalize} races with threads inside CUDA or CUPTI and crashed kineto in a
 * flush (pytorch/kineto#686). Here a callback subscriber is enabled for the runtime domain only for
 * the moment of detaching; this thread then makes one runtime call of its own, so the exit callback
 * that finalizes comes at once even when no other thread calls CUDA, and whichever thread reaches
 * an exit callback first finalizes, exactly once.
 */
final class CuptiDetach extends CUpti_CallbackFunc {
    private final AtomicBoolean pending = new AtomicBoolean();
    private volatile CountDownLatch done = new CountDownLatch(0);
    private volatile int status;

    /**
     * Finalizes CUPTI; returns null when detached, else why it stayed attached. The caller has
     * already disarmed every kind, flushed, and drained its completion callbacks and its own CUPTI
     * calls (nothing it owns can be inside CUPTI now).
     */
    String detach(long timeoutMs) {
        CUpti_Subscriber_st subscriber = new CUpti_Subscriber_st();
        int subscribed = cupti.cuptiSubscribe(subscriber, this, null);
        if (subscribed != 0) {
            return "cuptiSubscribe failed (" + subscribed + "): another CUPTI subscriber owns the process";
        }
        done = new CountDownLatch(1);
        pending.set(true);
        int enabled = cupti.cuptiEnableDomain(1, subscriber, cupti.CUPTI_CB_DOMAIN_RUNTIME_API);
        if (enabled != 0) {
            pending.set(false);
            cupti.cuptiUnsubscribe(subscriber);
            return "cuptiEnableDomain(RUNTIME_API) failed (" + enabled + ")";
        }
        try (IntPointer device = new IntPointer(1)) {
            cudart.cudaGetDevice(device); // its exit callback finalizes, unless another thread's came first
        }
        try {
            if (!done.await(timeoutMs, TimeUnit.MILLISECONDS)) {
                return "no runtime API exit callback within " + timeoutMs + " ms";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while detaching";
        }
        return status == 0 ? null : "cuptiFinalize returned " + status;
    }

    @Override
    public void call(Pointer userdata, int domain, int cbid, Pointer cbdata) {
        if (domain != cupti.CUPTI_CB_DOMAIN_RUNTIME_API || !pending.get()) {
            return;
        }
        if (new CUpti_CallbackData(cbdata).callbackSite() != cupti.CUPTI_API_EXIT || !pending.compareAndSet(true, false)) {
            return;
        }
        try {
            status = cupti.cuptiFinalize();
        } catch (Throwable e) { // never unwind into CUPTI's native frame
            status = -1;
        } finally {
            done.countDown();
        }
    }
}
