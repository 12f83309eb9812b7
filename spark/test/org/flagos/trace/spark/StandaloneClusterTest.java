package org.flagos.trace.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.flagos.trace.cli.FlagtraceCli;
import org.flagos.trace.cli.SyntheticRanks;
import org.flagos.trace.sql.Analyses;
import org.flagos.trace.sql.DuckDbAnalyses;
import org.flagos.trace.sql.ResultTable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every analysis on a real Spark standalone cluster equals DuckDB's ({@code analyze}'s engine), row for
 * row, over a table partitioned by rank that separate {@code flagtrace tables --partition-by-rank}
 * processes wrote, one JVM per rank (the rank traces of {@link SyntheticRanks}: the real h200-app capture
 * per rank, its own clock, steps, an NCCL-named kernel and a straggler).
 *
 * <p>The cluster is Spark's own, started from the Maven artifacts this build already has (no Spark
 * download): a master ({@code org.apache.spark.deploy.master.Master}) and two workers
 * ({@code org.apache.spark.deploy.worker.Worker}, 1 core and 512 MB each) as separate JVMs bound to
 * 127.0.0.1 on ports free at the time, their work, local and temporary folders in the test's folder under
 * target/. The workers launch the executors as their own JVMs; an executor's class path is Spark's and its
 * libraries' jars only (no folder of this build), and the project's classes reach it as a jar shipped with
 * the application ({@code spark.jars}), as {@code spark-submit} ships the spark jar. The driver is this
 * JVM, running {@link SparkAnalyses#run}, the entry point's own code.
 *
 * <p>The test holds that it ran on the cluster: the master's JSON status names two live workers and the
 * application on both, the driver sees two executors, every task ran on one of them (none on the driver,
 * both took tasks), and the executors loaded {@link SparkAnalyses} from the shipped jar. Every process it
 * started (and the executors the workers started) is ended in {@link #stop}, also when a step failed, and
 * checked gone; JUnit then removes the folder.
 */
@Tag("spark")
class StandaloneClusterTest {
    static final int RANKS = 4;
    static final int STRAGGLER = 2;
    static final int WORKERS = 2;
    static final String APP = "flagtrace-standalone-cluster";
    static final String JAR = "flagtrace-app.jar";
    /** How long the cluster may take to come up (JVM starts; generous for a loaded machine). */
    static final int STARTUP_S = 240;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    static final List<Process> started = new ArrayList<>();
    static final Set<String> taskExecutors = ConcurrentHashMap.newKeySet();
    static final AtomicLong tasks = new AtomicLong();
    static Thread reaper;
    static SparkSession spark;
    static int masterUi;
    static Path parts;

    @BeforeAll
    static void start() throws Exception {
        reaper = new Thread(StandaloneClusterTest::killAll, "standalone-cluster-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Path logs = Files.createDirectories(dir.resolve("logs"));

        // The table: one `flagtrace tables --partition-by-rank` process per rank trace, all into one folder.
        long began = System.nanoTime();
        List<Path> traces = SyntheticRanks.rankTraces(dir, RANKS, STRAGGLER, true);
        parts = dir.resolve("parts");
        List<Process> tablesRuns = new ArrayList<>();
        for (int r = 0; r < RANKS; r++) {
            List<String> cmd = java(tmp, "512m");
            cmd.addAll(List.of("-cp", classPath(), FlagtraceCli.class.getName(),
                    "tables", traces.get(r).toString(), "-o", parts.toString(), "--partition-by-rank"));
            tablesRuns.add(launch(cmd, Map.of(), logs.resolve("tables-rank" + r + ".log")));
        }
        for (int r = 0; r < RANKS; r++) {
            Process p = tablesRuns.get(r);
            assertTrue(p.waitFor(180, TimeUnit.SECONDS), "tables of rank " + r + " did not finish in 180 s");
            assertEquals(0, p.exitValue(), "tables of rank " + r + ": " + Files.readString(logs.resolve("tables-rank" + r + ".log")));
        }
        for (int r = 0; r < RANKS; r++) {
            assertTrue(Files.isDirectory(parts.resolve("events").resolve("rank=" + r)), "rank=" + r + "/");
        }
        System.out.printf("StandaloneClusterTest: %d rank traces and %d separate tables processes: %.1f s%n",
                RANKS, RANKS, (System.nanoTime() - began) / 1e9);

        // The cluster: a master and two workers, each its own JVM on the loopback.
        began = System.nanoTime();
        int masterPort = freePort();
        masterUi = freePort();
        List<String> master = java(tmp, "256m");
        master.addAll(List.of("-Dspark.master.rest.enabled=false", "-cp", classPath(), "org.apache.spark.deploy.master.Master",
                "--host", "127.0.0.1", "--port", Integer.toString(masterPort), "--webui-port", Integer.toString(masterUi)));
        launch(master, Map.of(), logs.resolve("master.log"));
        // A worker starts executors with SPARK_HOME/jars/* as their class path (Spark's launcher insists the
        // folder exists): here an empty one, and the jars of this JVM's class path in SPARK_DIST_CLASSPATH.
        Path sparkHome = dir.resolve("spark-home");
        Files.createDirectories(sparkHome.resolve("jars"));
        String jars = String.join(File.pathSeparator, Stream.of(classPath().split(File.pathSeparator))
                .filter(e -> e.endsWith(".jar") && Files.isRegularFile(Paths.get(e))).toList());
        for (int w = 0; w < WORKERS; w++) {
            Path work = Files.createDirectories(dir.resolve("worker" + w));
            List<String> worker = java(tmp, "256m");
            worker.addAll(List.of("-cp", classPath(), "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                    "--webui-port", Integer.toString(freePort()), "--cores", "1", "--memory", "512m",
                    "--work-dir", work.toString(), "spark://127.0.0.1:" + masterPort));
            launch(worker, Map.of("SPARK_HOME", sparkHome.toString(), "SPARK_DIST_CLASSPATH", jars, "SPARK_SCALA_VERSION", "2.13",
                    "SPARK_LOCAL_DIRS", work.resolve("local").toString(), "SPARK_LOCAL_IP", "127.0.0.1"),
                    logs.resolve("worker" + w + ".log"));
        }
        JsonNode state = awaitMaster(s -> alive(s) == WORKERS, "two live workers", logs);
        assertEquals(WORKERS, alive(state));

        spark = LocalSpark.builder(APP, dir)
                .master("spark://127.0.0.1:" + masterPort)
                .config("spark.jars", appJar(dir.resolve(JAR)).toString())
                .config("spark.executor.memory", "512m")
                .config("spark.executor.cores", "1")
                .config("spark.cores.max", Integer.toString(WORKERS))
                .config("spark.executor.extraJavaOptions", "-Djava.io.tmpdir=" + tmp)
                .config("spark.scheduler.minRegisteredResourcesRatio", "1.0")
                .config("spark.locality.wait", "0")
                .getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_S);
        while (spark.sparkContext().statusTracker().getExecutorInfos().length < WORKERS + 1) {
            assertTrue(System.nanoTime() < deadline, "the executors did not register in " + STARTUP_S + " s: " + logsOf(logs));
            Thread.sleep(200);
        }
        spark.sparkContext().addSparkListener(new SparkListener() {
            @Override
            public void onTaskEnd(SparkListenerTaskEnd end) {
                taskExecutors.add(end.taskInfo().executorId());
                tasks.incrementAndGet();
            }
        });
        System.out.printf("StandaloneClusterTest: master, %d workers and their executors up: %.1f s%n", WORKERS, (System.nanoTime() - began) / 1e9);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (spark != null) {
                spark.stop();
            }
        } finally {
            killAll();
            Runtime.getRuntime().removeShutdownHook(reaper);
        }
        for (Process p : started) {
            assertFalse(p.isAlive(), "still running: " + p.pid());
        }
    }

    @Test
    void everyAnalysisGivesTheSameTableOnTheClusterAndOnDuckDb() throws Exception {
        // The executors, not the driver, run the tasks, with the project's classes from the shipped jar.
        List<String> seen = spark.range(0, 8, 1, 8)
                .map((MapFunction<Long, String>) i -> SparkEnv.get().executorId() + " "
                        + SparkAnalyses.class.getProtectionDomain().getCodeSource().getLocation(), Encoders.STRING())
                .collectAsList();
        Set<String> probed = new TreeSet<>();
        for (String s : seen) {
            String[] f = s.split(" ", 2);
            probed.add(f[0]);
            assertTrue(f[1].endsWith("/" + JAR), "SparkAnalyses on executor " + f[0] + " came from " + f[1]);
        }
        assertFalse(probed.contains("driver"), probed.toString());

        Map<String, ResultTable> duck = new LinkedHashMap<>();
        long began = System.nanoTime();
        try (DuckDbAnalyses d = DuckDbAnalyses.open(parts)) {
            for (ResultTable t : d.runAll()) {
                duck.put(t.name(), t);
            }
        }
        long duckNs = System.nanoTime() - began;
        began = System.nanoTime();
        Map<String, ResultTable> cluster = new LinkedHashMap<>();
        Map<String, Dataset<Row>> plans = SparkAnalyses.run(spark, parts.toString());
        StringBuilder each = new StringBuilder(String.format("critical path rounds %.1f s", (System.nanoTime() - began) / 1e9));
        for (Map.Entry<String, Dataset<Row>> e : plans.entrySet()) {
            long one = System.nanoTime();
            cluster.put(e.getKey(), SqlEnginesIdentityTest.table(e.getKey(), e.getValue()));
            each.append(String.format(", %s %.1f s", e.getKey(), (System.nanoTime() - one) / 1e9));
        }
        long sparkNs = System.nanoTime() - began;
        System.out.printf("StandaloneClusterTest: %d ranks, DuckDB %.1f s, Spark standalone (%d workers) %.1f s, all %d analyses, %d tasks on executors %s (%s)%n",
                RANKS, duckNs / 1e9, WORKERS, sparkNs / 1e9, Analyses.NAMES.size(), tasks.get(), taskExecutors, each);

        assertEquals(Analyses.NAMES, List.copyOf(cluster.keySet()));
        assertEquals(Analyses.NAMES, List.copyOf(duck.keySet()));
        for (String name : Analyses.NAMES) {
            ResultTable a = duck.get(name);
            ResultTable b = cluster.get(name);
            assertEquals(a.columns(), b.columns(), name);
            assertFalse(a.rows().isEmpty(), name);
            assertEquals(SqlEnginesIdentityTest.sorted(a.rows()), SqlEnginesIdentityTest.sorted(b.rows()), name);
        }
        // Every rank is in the table the cluster read, from its rank=N folder.
        assertEquals((long) RANKS, spark.read().parquet(parts.toString()).select("rank").distinct().count());

        // It ran on the cluster: both workers' executors took tasks and the driver none; the master
        // lists the application with a core on each worker.
        assertTrue(tasks.get() > 0);
        assertEquals(WORKERS, taskExecutors.size(), "executors that ran tasks: " + taskExecutors);
        assertFalse(taskExecutors.contains("driver"), taskExecutors.toString());
        JsonNode state = masterState();
        assertEquals(WORKERS, alive(state), state.toString());
        JsonNode app = null;
        for (JsonNode a : state.path("activeapps")) {
            if (APP.equals(a.path("name").asText())) {
                app = a;
            }
        }
        assertTrue(app != null, "the master lists no application " + APP + ": " + state);
        assertEquals(WORKERS, app.path("cores").asInt(), app.toString());
        for (JsonNode w : state.path("workers")) {
            assertEquals(1, w.path("coresused").asInt(), w.toString());
        }
    }

    /** A JVM command with the flags Spark needs on Java 17 (this fork's own), its temporary folder {@code tmp}. */
    private static List<String> java(Path tmp, String heap) {
        List<String> cmd = new ArrayList<>(List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap, "-Djava.io.tmpdir=" + tmp));
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-opens") || a.startsWith("-XX:+IgnoreUnrecognizedVMOptions") || a.startsWith("-Djdk.reflect.")
                    || a.startsWith("-Dio.netty.") || a.startsWith("-Dorg.bytedeco.javacpp.cachedir=")) {
                cmd.add(a);
            }
        }
        return cmd;
    }

    private static String classPath() {
        return System.getProperty("java.class.path");
    }

    private static synchronized Process launch(List<String> cmd, Map<String, String> env, Path log) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        started.add(p);
        return p;
    }

    /** Ends every process started here and their descendants (the executors): TERM, then KILL after 20 s. */
    private static synchronized void killAll() {
        List<ProcessHandle> all = new ArrayList<>();
        for (Process p : started) {
            p.descendants().forEach(all::add);
            all.add(p.toHandle());
        }
        all.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                h.destroyForcibly();
            }
        }
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("process " + h.pid() + " outlived the kill", e);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static JsonNode masterState() throws IOException {
        try (InputStream in = URI.create("http://127.0.0.1:" + masterUi + "/json/").toURL().openStream()) {
            return JSON.readTree(in);
        }
    }

    private static int alive(JsonNode state) {
        int n = 0;
        for (JsonNode w : state.path("workers")) {
            n += "ALIVE".equals(w.path("state").asText()) ? 1 : 0;
        }
        return n;
    }

    private static JsonNode awaitMaster(java.util.function.Predicate<JsonNode> ready, String what, Path logs) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_S);
        Object last = "no answer";
        while (true) {
            for (Process p : started) {
                assertTrue(p.isAlive() || p.exitValue() == 0, "a cluster JVM exited with " + (p.isAlive() ? 0 : p.exitValue()) + ": " + logsOf(logs));
            }
            try {
                JsonNode s = masterState();
                if (ready.test(s)) {
                    return s;
                }
                last = s;
            } catch (IOException notYet) {
                last = notYet; // the master's UI is not up yet
            }
            assertTrue(System.nanoTime() < deadline, "no " + what + " in " + STARTUP_S + " s; the master's last answer: " + last + logsOf(logs));
            Thread.sleep(250);
        }
    }

    private static String logsOf(Path logs) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> files = Files.list(logs)) {
            for (Path f : files.sorted().toList()) {
                String s = Files.readString(f, StandardCharsets.UTF_8);
                sb.append("\n--- ").append(f.getFileName()).append('\n').append(s, Math.max(0, s.length() - 2000), s.length());
            }
        }
        return sb.toString();
    }

    /**
     * The application's jar: what the spark jar holds (spark/main's classes, the .sql files and their loader, OpNesting
     * and KeyAveragesRule, as pom.xml's spark profile copies them)
     * and the Spark tests' classes (this class's task code), from this build's class folders.
     */
    private static Path appJar(Path jar) throws IOException {
        Path spark = Paths.get(URI.create(SparkAnalyses.class.getProtectionDomain().getCodeSource().getLocation().toString()));
        Path sql = Paths.get(URI.create(Analyses.class.getProtectionDomain().getCodeSource().getLocation().toString()));
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            add(j, spark, "org/flagos/trace/spark/", n -> n.endsWith(".class"));
            add(j, sql, "org/flagos/trace/sql/", n -> n.endsWith(".sql") || n.startsWith("Analyses") || n.startsWith("CollectiveKernels")
                    || n.startsWith("CriticalPath") || n.startsWith("OpNesting"));
            add(j, sql, "org/flagos/trace/stages/", n -> n.startsWith("KeyAveragesRule")); // OpNesting's rule, in the executors' tasks
        }
        return jar;
    }

    private static void add(JarOutputStream j, Path root, String folder, java.util.function.Predicate<String> keep) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(root.resolve(folder))) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        assertFalse(files.isEmpty(), root.resolve(folder).toString());
        for (Path f : files) {
            Path rel = root.resolve(folder).relativize(f);
            if (rel.getNameCount() == 1 && !keep.test(rel.toString())) {
                continue;
            }
            j.putNextEntry(new JarEntry(root.relativize(f).toString().replace(File.separatorChar, '/')));
            j.write(Files.readAllBytes(f));
            j.closeEntry();
        }
    }
}
