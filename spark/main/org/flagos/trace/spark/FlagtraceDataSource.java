package org.flagos.trace.spark;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.flagos.trace.encoders.EventTable;

/**
 * {@code spark.read.format("flagtrace").load(paths...)}: torch-compatible JSON traces ({@code .json},
 * {@code .json.gz}; torch's, flagtrace's, a merge's) read on the executors, one task per file, into the
 * {@code events} table of docs/tables.md: the columns {@code flagtrace tables} writes ({@link EventTable#COLUMNS},
 * the same names, types and values, read by the project's one trace reader and finished by its one rule,
 * {@link org.flagos.trace.encoders.EventFacts#finish}), then {@code job_id}, {@code source_file} and
 * {@code clock_offset_ns}. Options and their words: docs/analysis.md, "Traces read on the cluster".
 */
public final class FlagtraceDataSource implements TableProvider, DataSourceRegister {
    /** The short name of {@code format(...)}. */
    public static final String NAME = "flagtrace";
    /** The columns after the events table's: the job, the trace file each row came from, and the offset applied to its times. */
    public static final List<String> EXTRA_COLUMNS = List.of("job_id", "source_file", "clock_offset_ns");

    /** The table's schema: {@link EventTable#COLUMNS}, then {@link #EXTRA_COLUMNS}. */
    public static final StructType SCHEMA = schema();

    private static StructType schema() {
        List<StructField> fields = new ArrayList<>();
        for (String[] c : EventTable.COLUMNS) {
            DataType t = switch (c[1]) {
                case "INTEGER" -> DataTypes.IntegerType;
                case "BIGINT" -> DataTypes.LongType;
                case "VARCHAR" -> DataTypes.StringType;
                default -> throw new IllegalStateException("no Spark type for " + c[1]);
            };
            fields.add(DataTypes.createStructField(c[0], t, true));
        }
        fields.add(DataTypes.createStructField("job_id", DataTypes.StringType, false));
        fields.add(DataTypes.createStructField("source_file", DataTypes.StringType, false));
        fields.add(DataTypes.createStructField("clock_offset_ns", DataTypes.LongType, false));
        return DataTypes.createStructType(fields);
    }

    @Override
    public String shortName() {
        return NAME;
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return SCHEMA;
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new TracesTable();
    }

    /** The traces as one table, read in batch. */
    static final class TracesTable implements SupportsRead {
        @Override
        public String name() {
            return NAME;
        }

        @Override
        public StructType schema() {
            return SCHEMA;
        }

        @Override
        public Set<TableCapability> capabilities() {
            return EnumSet.of(TableCapability.BATCH_READ);
        }

        @Override
        public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
            TraceScan scan = new TraceScan(TraceScan.Settings.of(options));
            return () -> scan;
        }
    }
}
