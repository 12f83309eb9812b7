package org.flagos.trace.model;

/**
 * The host op's id, pushed to the vendor as its external correlation id while the op runs.
 * It attributes device time to the innermost op and is written as {@code args["External id"]}.
 * Ids start at 0 and 0 is a valid id: absence is modelled by not having one, never by 0.
 *
 * @param value the id, non-negative
 */
public record ExternalId(long value) {
    public ExternalId {
        if (value < 0) {
            throw new IllegalArgumentException("External id must be non-negative: " + value);
        }
    }
}
