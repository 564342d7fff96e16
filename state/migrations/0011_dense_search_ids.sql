-- pixdash state, schema version 11: the search index keyed by a small number per charge.
--
-- The trigram index (migration 0010: detail=none, columnsize=0) keeps, for each trigram, the
-- list of the rowids holding it, each stored as its distance from the one before. Keyed by
-- charges.seq (unix ms << 20) every distance took 5 or 6 bytes and the index 1,074 B per charge
-- (100,000 generated charges, refilled); keyed by charges.fts_id it takes 242 B (and its
-- index charges_fts_id about 17 B). Converting a profile costs one refill of the index, as
-- migration 0010 did: 5.6 s at 100,000 charges, 2 min 19 s at 1M (2 cores, loaded).
--
-- charges.fts_id is the charge's place in the list, as seq is, but with small steps: the oldest
-- charge gets 4, each next one 4 more, so the index streams its matches in the list's order
-- (ORDER BY f.rowid DESC is ORDER BY seq DESC) and a text's first page stops early. A charge
-- created before others already stored (a moved creation time, an import) takes a number
-- between its neighbours'; when there is none left, the store renumbers a few neighbours in the
-- same transaction (labelSearchRows, state/searchids.go). NULL until then: such a row is not in
-- the index yet.
--
-- Still an external-content index over charges.hay (the text is stored once, in the row, where
-- the filter checks each match with instr), now with content_rowid = fts_id: 'rebuild' and
-- 'integrity-check' keep working. The ALTER TABLE adding the column runs before this file
-- (addSearchIDColumn, state/db.go), only when the column is missing: this file can run again
-- over its own result.
DROP TRIGGER IF EXISTS charges_fts_ins;
DROP TRIGGER IF EXISTS charges_fts_del;
DROP TRIGGER IF EXISTS charges_fts_upd;
DROP TABLE IF EXISTS charges_fts;
DROP INDEX IF EXISTS charges_fts_id;

UPDATE charges SET fts_id = r.n * 4
  FROM (SELECT seq, row_number() OVER (ORDER BY seq) AS n FROM charges) AS r
  WHERE charges.seq = r.seq;
CREATE INDEX charges_fts_id ON charges(fts_id);

CREATE VIRTUAL TABLE charges_fts USING fts5(hay, content='charges', content_rowid='fts_id', tokenize='trigram', detail=none, columnsize=0);
INSERT INTO charges_fts(charges_fts) VALUES ('rebuild');

-- A new charge without a number takes one between its neighbours' (4 past the newest's when it
-- is the newest, 4 before the oldest's when it is the oldest), then enters the index (through
-- charges_fts_upd); with no number free between its neighbours it stays NULL for
-- labelSearchRows. The assigning UPDATE also moves meta's charges_version, which only has to move.
CREATE TRIGGER charges_fts_ins AFTER INSERT ON charges BEGIN
  UPDATE charges SET fts_id = (
    SELECT CASE
      WHEN n IS NULL THEN coalesce(p, 0) + 4
      WHEN p IS NULL THEN n - 4
      WHEN n - p >= 2 THEN p + (n - p) / 2
    END FROM (SELECT
      (SELECT fts_id FROM charges WHERE seq < new.seq AND fts_id IS NOT NULL ORDER BY seq DESC LIMIT 1) AS p,
      (SELECT fts_id FROM charges WHERE seq > new.seq AND fts_id IS NOT NULL ORDER BY seq LIMIT 1) AS n))
  WHERE seq = new.seq AND new.fts_id IS NULL;
  INSERT INTO charges_fts(rowid, hay) SELECT new.fts_id, new.hay WHERE new.fts_id IS NOT NULL;
END;
CREATE TRIGGER charges_fts_del AFTER DELETE ON charges WHEN old.fts_id IS NOT NULL BEGIN
  INSERT INTO charges_fts(charges_fts, rowid, hay) VALUES ('delete', old.fts_id, old.hay);
END;
-- One trigger for every change the index follows, so the order of its steps is fixed: what was
-- indexed goes out, what the row holds comes in. A charge that moved in the list (its seq
-- changed) takes a number between its new neighbours' (this trigger does not fire again for
-- that UPDATE: recursive triggers are off), or NULL for labelSearchRows.
CREATE TRIGGER charges_fts_upd AFTER UPDATE OF seq, fts_id, hay ON charges
  WHEN old.seq <> new.seq OR old.fts_id IS NOT new.fts_id OR old.hay <> new.hay BEGIN
  INSERT INTO charges_fts(charges_fts, rowid, hay) SELECT 'delete', old.fts_id, old.hay WHERE old.fts_id IS NOT NULL;
  INSERT INTO charges_fts(rowid, hay) SELECT new.fts_id, new.hay WHERE new.fts_id IS NOT NULL AND new.seq = old.seq;
  UPDATE charges SET fts_id = (
    SELECT CASE
      WHEN n IS NULL THEN coalesce(p, 0) + 4
      WHEN p IS NULL THEN n - 4
      WHEN n - p >= 2 THEN p + (n - p) / 2
    END FROM (SELECT
      (SELECT fts_id FROM charges WHERE seq < new.seq AND fts_id IS NOT NULL ORDER BY seq DESC LIMIT 1) AS p,
      (SELECT fts_id FROM charges WHERE seq > new.seq AND fts_id IS NOT NULL ORDER BY seq LIMIT 1) AS n))
  WHERE seq = new.seq AND old.seq <> new.seq;
  INSERT INTO charges_fts(rowid, hay) SELECT fts_id, hay FROM charges WHERE seq = new.seq AND old.seq <> new.seq AND fts_id IS NOT NULL;
END;
