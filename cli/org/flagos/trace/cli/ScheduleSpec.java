package org.flagos.trace.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flagos.trace.session.StepSchedule;

/**
 * {@code --schedule wait=1,warmup=1,active=2[,repeat=1][,skip_first=0][,skip_first_wait=0]}: torch's
 * {@code torch.profiler.schedule} in torch's words, each key at most once, {@code active} required.
 */
final class ScheduleSpec {
    /** torch.profiler.schedule's parameters, in its order. */
    static final List<String> KEYS = List.of("wait", "warmup", "active", "repeat", "skip_first", "skip_first_wait");

    private ScheduleSpec() {
    }

    /** The schedule {@code spec} describes; a {@link UsageException} naming what is wrong otherwise. */
    static StepSchedule parse(String spec) {
        Map<String, Long> values = new LinkedHashMap<>();
        for (String part : spec.split(",", -1)) {
            int eq = part.indexOf('=');
            if (eq < 0) {
                throw refused("'" + part + "' is not KEY=N");
            }
            String key = part.substring(0, eq).strip();
            String value = part.substring(eq + 1).strip();
            if (!KEYS.contains(key)) {
                throw refused("unknown key '" + key + "'; torch's keys: " + String.join(", ", KEYS));
            }
            if (values.containsKey(key)) {
                throw refused(key + " given twice");
            }
            long n;
            try {
                n = Long.parseLong(value);
            } catch (NumberFormatException e) {
                throw refused(key + " must be a whole number, was '" + value + "'");
            }
            if (n < 0) {
                throw refused(key + " must be 0 or more, was " + n);
            }
            if (key.equals("skip_first_wait") && n > 1) {
                throw refused("skip_first_wait must be 0 or 1, was " + n);
            }
            values.put(key, n);
        }
        if (values.getOrDefault("active", 0L) < 1) {
            throw refused("active must be at least 1 (the recorded steps of a cycle)");
        }
        try {
            return StepSchedule.builder().waitSteps(values.getOrDefault("wait", 0L)).warmup(values.getOrDefault("warmup", 0L))
                    .active(values.get("active")).repeat(values.getOrDefault("repeat", 0L))
                    .skipFirst(values.getOrDefault("skip_first", 0L)).skipFirstWait(values.getOrDefault("skip_first_wait", 0L) == 1)
                    .build();
        } catch (IllegalArgumentException e) {
            throw refused(e.getMessage());
        }
    }

    private static UsageException refused(String why) {
        return new UsageException("--schedule: " + why);
    }
}
