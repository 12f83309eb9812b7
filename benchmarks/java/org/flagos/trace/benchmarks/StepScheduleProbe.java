package org.flagos.trace.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.flagos.trace.model.DeviceTracer;
import org.flagos.trace.session.OpScope;
import org.flagos.trace.session.Profiler;
import org.flagos.trace.session.ScheduleOptions;
import org.flagos.trace.session.ScheduledSession;
import org.flagos.trace.session.StepSchedule;

/**
 * The Java twin of {@code benchmarks/device/torch_step_schedule.py}, live on the GPU: skip_first=1,
 * wait=1, warmup=1, active=2, repeat=2 over 12 steps, each step one {@code work} op around one
 * 4-byte memset, the traces written by the default handler (torch's TensorBoard file names). Then
 * reads every file back and prints, as the torch script does, its ProfilerStep ops and its device
 * records, and checks torch's settled facts: two files, steps 3 and 4 then 7 and 8, one memset per
 * recorded step, none from the skipped, waiting or warmup steps. Exits 1 when a fact fails.
 * Usage: {@code StepScheduleProbe OUT_DIR}.
 */
public final class StepScheduleProbe {
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "schedule-traces");
        DeviceTracer tracer = Profiler.init(); // before the first CUDA call, so CUPTI hears the context
        StepSchedule schedule = StepSchedule.builder().skipFirst(1).waitSteps(1).warmup(1).active(2).repeat(2).build();
        try (CudaMemsetLoop loop = CudaMemsetLoop.open(0);
             ScheduledSession session = Profiler.start(tracer, ScheduleOptions.in(out, schedule))) {
            for (int i = 0; i < 12; i++) {
                try (OpScope work = session.op("work")) {
                    loop.launch(1);
                }
                session.step();
            }
            if (!session.failures().isEmpty()) {
                System.out.println("failures " + session.failures());
            }
        }
        List<String> problems = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> listed = Files.list(out)) {
            files = listed.sorted().toList();
        }
        List<List<String>> stepsPerFile = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (Path f : files) {
            JsonNode events = json.readTree(f.toFile()).get("traceEvents");
            List<String> steps = new ArrayList<>();
            TreeMap<String, Integer> device = new TreeMap<>();
            int work = 0;
            for (JsonNode e : events) {
                String name = e.path("name").asText();
                String cat = e.path("cat").asText();
                if (name.startsWith(ScheduledSession.STEP_OP_PREFIX) && "X".equals(e.path("ph").asText())
                        && !cat.equals("gpu_user_annotation")) { // the host step (user_annotation, as torch's), not its stream spans
                    steps.add(name);
                    System.out.printf("  step %s %s ts=%s dur=%s%n", name, cat, e.path("ts").asText(), e.path("dur").asText());
                } else if (cat.equals("kernel") || cat.equals("gpu_memset") || cat.equals("gpu_memcpy")) {
                    device.merge(cat, 1, Integer::sum);
                } else if (name.equals("work") && "X".equals(e.path("ph").asText())) {
                    work++;
                }
            }
            System.out.println(f.getFileName() + "  device " + device + "  work ops " + work);
            stepsPerFile.add(steps);
            if (device.getOrDefault("gpu_memset", 0) != steps.size()) {
                problems.add(f.getFileName() + ": " + device + " for " + steps.size() + " recorded steps");
            }
        }
        List<List<String>> expected = List.of(List.of("ProfilerStep#3", "ProfilerStep#4"), List.of("ProfilerStep#7", "ProfilerStep#8"));
        if (!stepsPerFile.equals(expected)) {
            problems.add("steps per file " + stepsPerFile + ", torch's " + expected);
        }
        System.out.println(problems.isEmpty() ? "schedule as torch's: 2 files, steps 3,4 and 7,8, one memset per recorded step"
                : "PROBLEMS " + problems);
        System.exit(problems.isEmpty() ? 0 : 1);
    }

    private StepScheduleProbe() {
    }
}
