// Change capture for the SQL engines: one trigger function, attached to every model's
// table, records each changed row in the change log (`quire_changes`), whatever
// statement wrote it (REST, bulk writes, imports, cascades, hooks, psql). Positions are
// assigned later, in commit order, by the sequencer (src/storage/sql/changes/sql-change-sequencer.ts), in
// a narrow table of their own: a captured change is written once and never updated, so the
// log's wide rows (whole documents) are only appended and pruned.
import type { Model } from '../../models/model-definition.ts'
import { quoteIdent, quoteLiteral } from '../sql-text.ts'
import { tableName } from './schema-ddl.ts'

export const CHANGE_TABLE = 'quire_changes'
export const CHANGE_STATE = 'quire_change_state'
export const CHANGE_POSITIONS = 'quire_change_positions'
/** The setting a write statement sets (locally) to the acting user's id; the trigger reads it. */
export const ACTOR_SETTING = 'quire.actor'

// Parts of CHANGE_LOG_DDL, named to keep its lines short (its text, and so its digest, unchanged).
const POS_COLUMN_EXISTS =
  `SELECT 1 FROM pg_attribute WHERE attrelid = '${CHANGE_TABLE}'::regclass ` +
  "AND attname = 'pos' AND NOT attisdropped"
const HAS_POSITION = `SELECT 1 FROM ${CHANGE_POSITIONS} p WHERE p.id = c.id`
const KEPT_FIELDS_OF_DOC =
  "(SELECT coalesce(jsonb_object_agg(k, change_doc->k), '{}'::jsonb) FROM unnest(TG_ARGV[1:]) k " +
  'WHERE change_doc ? k)'

/**
 * The log, the positions given to its changes, its state row (the last position given, the last
 * one pruned, the id below which every change has a position) and the capture function. A log
 * from before positions had their own table (a `pos` column, updated in place) moves them there.
 * A floor above a change without a position goes back below it, so that the change is numbered:
 * the sequencer's floor from commit 740226f could pass over the changes of a transaction that
 * was the only one running (CHANGELOG.md, Fixed). That reads the log's ids once, at the first
 * start with this definition (src/storage/sql/schema/sync-change-capture.ts runs it when its digest changed).
 */
export const CHANGE_LOG_DDL = `
CREATE TABLE IF NOT EXISTS ${CHANGE_TABLE} (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  model text NOT NULL,
  op text NOT NULL,
  doc_id text NOT NULL,
  actor text,
  doc jsonb
);
CREATE INDEX IF NOT EXISTS ${CHANGE_TABLE}_at ON ${CHANGE_TABLE} USING brin (at);
CREATE TABLE IF NOT EXISTS ${CHANGE_POSITIONS} (
  pos bigint PRIMARY KEY,
  id bigint NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS ${CHANGE_STATE} (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  head bigint NOT NULL DEFAULT 0,
  pruned_through bigint NOT NULL DEFAULT 0
);
ALTER TABLE ${CHANGE_STATE} ADD COLUMN IF NOT EXISTS floor bigint NOT NULL DEFAULT 0;
INSERT INTO ${CHANGE_STATE} DEFAULT VALUES ON CONFLICT DO NOTHING;
DO $move$ BEGIN
  IF EXISTS (${POS_COLUMN_EXISTS}) THEN
    INSERT INTO ${CHANGE_POSITIONS} (pos, id) SELECT pos, id FROM ${CHANGE_TABLE} WHERE pos IS NOT NULL;
    ALTER TABLE ${CHANGE_TABLE} DROP COLUMN pos;
  END IF;
END $move$;
UPDATE ${CHANGE_STATE} SET floor = skipped.id - 1 FROM (SELECT min(c.id) AS id FROM ${CHANGE_TABLE} c
  WHERE c.id <= (SELECT floor FROM ${CHANGE_STATE}) AND NOT EXISTS (${HAS_POSITION})) skipped
WHERE skipped.id IS NOT NULL;
CREATE OR REPLACE FUNCTION quire_capture_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  change_op text;
  change_doc jsonb;
  change_id text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    change_op := 'create'; change_doc := NEW.doc; change_id := NEW._id;
  ELSIF TG_OP = 'DELETE' THEN
    change_op := 'permanent_delete'; change_doc := OLD.doc; change_id := OLD._id;
  ELSIF NEW.doc IS NOT DISTINCT FROM OLD.doc AND NEW._id = OLD._id THEN
    RETURN NULL;
  ELSE
    change_doc := NEW.doc; change_id := NEW._id;
    change_op := CASE
      WHEN (NEW.doc->'_deleted') = 'true' AND (OLD.doc->'_deleted') IS DISTINCT FROM 'true' THEN 'soft_delete'
      WHEN (OLD.doc->'_deleted') = 'true' AND (NEW.doc->'_deleted') IS DISTINCT FROM 'true' THEN 'restore'
      ELSE 'update' END;
  END IF;
  IF TG_NARGS > 1 THEN
    change_doc := ${KEPT_FIELDS_OF_DOC};
  END IF;
  INSERT INTO ${CHANGE_TABLE} (model, op, doc_id, actor, doc)
    VALUES (TG_ARGV[0], change_op, change_id, nullif(current_setting('${ACTOR_SETTING}', true), ''), change_doc);
  RETURN NULL;
END $fn$;
`

/**
 * The fields the log keeps of a document of `model`: all of them (undefined), except for the
 * service's internal models (credentials, secrets), of which the feed needs only whose they are.
 */
function keptFields(model: Model): string[] | undefined {
  return model.name.startsWith('_') ? ['user_id'] : undefined
}

/** Attaches (or re-attaches) the capture trigger to a model's table. */
export function captureTriggerSql(model: Model): string {
  const args = [model.name, ...(keptFields(model) ?? [])].map(quoteLiteral).join(', ')
  return (
    `CREATE OR REPLACE TRIGGER quire_capture AFTER INSERT OR UPDATE OR DELETE ON ${quoteIdent(tableName(model))} ` +
    `FOR EACH ROW EXECUTE FUNCTION quire_capture_change(${args})`
  )
}
