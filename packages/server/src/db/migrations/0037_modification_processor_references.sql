-- Refunds, reversals, captures and adjustments at a real processor are answered "received"; the
-- final result comes later in a notification that names the processor's own reference of the
-- modification. It is kept here to match that notification. Null for the sandbox (it answers at once).
ALTER TABLE refunds ADD COLUMN processor_reference text;
ALTER TABLE captures ADD COLUMN processor_reference text;
CREATE INDEX refunds_processor_reference ON refunds (processor_reference) WHERE processor_reference IS NOT NULL;
CREATE INDEX captures_processor_reference ON captures (processor_reference) WHERE processor_reference IS NOT NULL;
