/**
 * Version 3 of the team store's schema (applied by sources/team/schema.ts): each role changes only the
 * lifecycle of the rows it published, and publishers carry an id of their own.
 */
/** The columns a teammate may UPDATE (on the rows it published: see version 3). */
export const UPDATABLE_COLUMNS = 'head, state, superseded_by';
/** Columns a lifecycle change may alter: the updatable ones and what the guard sets or the server computes. */
const LIFECYCLE_COLUMNS = `ARRAY['head', 'state', 'superseded_by', 'retired_by', 'retired_at', 'txid', 'tsv', 'tsv_head']`;

/**
 * Version 3: a role changes only the rows it published, and only their lifecycle.
 * - Row-level security: every role reads every row and may insert (the guard makes it the author),
 *   but an UPDATE sees only the session's own rows, so `UPDATE notes SET head = false` run by a
 *   teammate touches none of anyone else's notes. The owner of the table is not bound by the
 *   policies (as with any table: it can drop them), so the store should be owned by a role no one
 *   pushes with.
 * - Column privileges: teammates may UPDATE only head, state and superseded_by; the guard also
 *   compares every other column (vectors included) and refuses any change to them.
 * - A newer revision by anyone may still take the head from another author's revision: that is
 *   how an edit is published. The insert trigger does it (as the table owner, since the inserting
 *   role may not update that row), marks the old head superseded and records the inserting role in
 *   `retired_by`; each puller then decides whose word to take (sources/team/projection.ts).
 * - `publisher`: a random id per KB and state dir of the publishing recall (the host name alone
 *   cannot tell apart two people on one host or two KBs of one person). Rows from earlier versions
 *   keep it null and are told apart by machine, KB and author.
 * Grants made by earlier versions (UPDATE on the whole table) are narrowed to the lifecycle columns.
 */
export const ownRowsOnly = (s: string): string => `
ALTER TABLE ${s}.notes ADD COLUMN publisher text CHECK (publisher IS NULL OR length(publisher) BETWEEN 1 AND 128);
CREATE INDEX notes_heads_by_author ON ${s}.notes (author, publisher) WHERE head;
CREATE OR REPLACE FUNCTION ${s}.notes_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.txid := pg_current_xact_id();
  IF TG_OP = 'INSERT' THEN
    NEW.author := session_user;
    NEW.published_at := now();
    IF NEW.state <> 'current' OR NOT NEW.head THEN
      NEW.retired_by := session_user; NEW.retired_at := now();
    ELSE
      NEW.retired_by := NULL; NEW.retired_at := NULL;
    END IF;
    RETURN NEW;
  END IF;
  -- Everything but the lifecycle columns (and what the server computes) is the published revision.
  IF (to_jsonb(NEW) - ${LIFECYCLE_COLUMNS}) IS DISTINCT FROM (to_jsonb(OLD) - ${LIFECYCLE_COLUMNS}) THEN
    RAISE EXCEPTION 'a published revision cannot be changed; publish a new revision instead' USING ERRCODE = 'check_violation';
  END IF;
  IF (NEW.head, NEW.state, NEW.superseded_by) IS DISTINCT FROM (OLD.head, OLD.state, OLD.superseded_by) THEN
    NEW.retired_by := session_user; NEW.retired_at := now();
  ELSE
    NEW.retired_by := OLD.retired_by; NEW.retired_at := OLD.retired_at;
  END IF;
  RETURN NEW;
END $$;
CREATE FUNCTION ${s}.notes_take_head() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF NEW.head THEN
    UPDATE ${s}.notes SET head = false,
           superseded_by = CASE WHEN state = 'current' THEN NEW.id ELSE superseded_by END,
           state = CASE WHEN state = 'current' THEN 'superseded' ELSE state END
     WHERE id = NEW.id AND head;
  END IF;
  RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION ${s}.notes_take_head() FROM PUBLIC;
CREATE TRIGGER notes_take_head BEFORE INSERT ON ${s}.notes FOR EACH ROW EXECUTE FUNCTION ${s}.notes_take_head();
ALTER TABLE ${s}.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY notes_read ON ${s}.notes FOR SELECT USING (true);
CREATE POLICY notes_publish ON ${s}.notes FOR INSERT WITH CHECK (author = session_user);
CREATE POLICY notes_own_lifecycle ON ${s}.notes FOR UPDATE USING (author = session_user) WITH CHECK (author = session_user);
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT DISTINCT g.grantee::regrole::text AS role
             FROM pg_class c, aclexplode(c.relacl) g
            WHERE c.oid = '${s}.notes'::regclass AND g.privilege_type = 'UPDATE' AND g.grantee <> c.relowner AND g.grantee <> 0
  LOOP
    EXECUTE format('REVOKE UPDATE ON ${s}.notes FROM %s', r.role);
    EXECUTE format('GRANT UPDATE (%s) ON ${s}.notes TO %s', '${UPDATABLE_COLUMNS}', r.role);
  END LOOP;
END $$;
`;
