-- The heapq store: heap dumps of one process in SQLite, written by `heapq load`, read by every
-- heapq command (INPUT may be STORE.db, its last dump, or STORE.db#N) and by `heapq sql`.
--
-- heapq executes this very text (CMake embeds it in the binary): the tables when the store is
-- created, and what follows the after-rows marker line below once every row is in (indexes
-- are cheaper to build over a full table than to maintain row by row).
--
-- Conventions: every table but `types` carries `dump_id` (dumps.id). Object, class, site and
-- string ids are the dense ids of heapq's in-memory model (0-based, in dump order), so
-- objects.id is the object's position in its dump. Addresses are integers (SQLite reads hex
-- literals: `WHERE address = 0x7f3a9c0b1e28`); the views add them as '0x...' text in columns
-- of their own (address_hex), for reading, not for joining: join and filter on the integers,
-- which the indexes serve. NULL means "none": no class, no allocation site, no line, not a gem,
-- not reachable from the roots.

PRAGMA application_id = 1751474545;  -- 'heaq'
PRAGMA user_version = 3;             -- the version of this schema (2: sites.gem_id, gems; 3: dumps.pid)

-- One row per dump, with what its load met (LoadReport): counts of skipped and repaired input.
CREATE TABLE dumps (
  id INTEGER PRIMARY KEY,         -- 1, 2, ... in the order given to `heapq load`
  path TEXT NOT NULL,             -- the dump file as given to `heapq load`
  format TEXT NOT NULL,           -- 'objectspace' or 'memprof'
  loaded_at TEXT NOT NULL,        -- UTC, ISO 8601
  lines INTEGER NOT NULL,
  objects INTEGER NOT NULL,
  roots INTEGER NOT NULL,         -- ROOT records
  shapes INTEGER NOT NULL,        -- SHAPE records (Ruby 3.3+)
  skipped_records INTEGER NOT NULL,
  bad_lines INTEGER NOT NULL,
  repaired_strings INTEGER NOT NULL,
  dangling_references INTEGER NOT NULL,
  dangling_classes INTEGER NOT NULL,
  duplicate_addresses INTEGER NOT NULL,
  damage TEXT,                    -- how the data ended badly (a truncated gzip stream), or NULL
  missing_end INTEGER NOT NULL,   -- 1: a memprof dump without its END record
  end_records INTEGER,            -- what the END record announced, NULL without one
  edges INTEGER NOT NULL,         -- references kept (objects' and the roots')
  named_refs INTEGER NOT NULL,    -- 1 when the dump names its references (memprof)
  weak_holders INTEGER NOT NULL,  -- objects whose references do not retain (weak maps)
  reachable_bytes INTEGER NOT NULL,
  unreachable_objects INTEGER NOT NULL,  -- garbage not yet swept: retains nothing
  unreachable_bytes INTEGER NOT NULL,
  pid INTEGER,                    -- the process dumped (memprof's META), NULL when unknown
  dumped_at TEXT,                 -- when, ISO 8601 as the dump wrote it, NULL when unknown
  gc_count INTEGER                -- GC.count when dumped, NULL when unknown
);

-- The first few problems of each kind, as the load reported them.
CREATE TABLE dump_issues (
  dump_id INTEGER NOT NULL,
  kind TEXT NOT NULL,             -- 'bad_line' or 'repaired_string'
  seq INTEGER NOT NULL,
  line INTEGER NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (dump_id, kind, seq)
) WITHOUT ROWID;

-- Object types as the dump spells them; objects.type is an id of this table.
CREATE TABLE types (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE       -- 'OBJECT', 'STRING', 'IMEMO', ...
);

-- Interned strings: class names, files, methods, reference names, root categories.
CREATE TABLE strings (
  dump_id INTEGER NOT NULL,
  id INTEGER NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (dump_id, id)
) WITHOUT ROWID;

-- Classes as objects refer to them: what obj.class returns. Pseudo classes ('(no class)',
-- 'IMEMO:cref', 'ICLASS') have address 0 and no object.
CREATE TABLE classes (
  dump_id INTEGER NOT NULL,
  id INTEGER NOT NULL,
  address INTEGER NOT NULL,
  object INTEGER,                 -- objects.id of the CLASS/MODULE record, NULL if not dumped
  name_id INTEGER NOT NULL,       -- strings.id
  PRIMARY KEY (dump_id, id)
) WITHOUT ROWID;

-- The gems that allocation sites lie in, as `heapq sites --by gem` finds them in the file's
-- path (the last '/gems/NAME-VERSION/' in it): '.../gems/rack-2.2.3/lib/rack.rb' is rack 2.2.3.
-- Shared by the store's dumps.
CREATE TABLE gems (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,             -- 'rack'
  version TEXT NOT NULL,          -- '2.2.3'
  UNIQUE (name, version)
);

-- Allocation sites (dumps of processes that traced allocations).
CREATE TABLE sites (
  dump_id INTEGER NOT NULL,
  id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,       -- strings.id
  line INTEGER,                   -- NULL when the dump gives none (allocated by C code)
  method_id INTEGER,              -- strings.id, NULL when the dump has no method
  gem_id INTEGER,                 -- gems.id, NULL when the file is not in a gem
  PRIMARY KEY (dump_id, id)
) WITHOUT ROWID;

-- Every object record, with the analyses' results. Column order: what `heapq` reads most
-- comes first.
CREATE TABLE objects (
  dump_id INTEGER NOT NULL,
  id INTEGER NOT NULL,            -- dense id: position in the dump
  address INTEGER NOT NULL,
  type INTEGER NOT NULL,          -- types.id
  class_id INTEGER,               -- classes.id
  memsize INTEGER NOT NULL,       -- bytes, as Ruby reports them
  site_id INTEGER,                -- sites.id
  generation INTEGER NOT NULL,    -- GC generation at allocation (0 when not traced)
  idom INTEGER,                   -- immediate dominator: objects.id, -1 for the roots' own
                                  -- (the virtual root above the GC roots), NULL unreachable
  retained_bytes INTEGER NOT NULL,-- memsize of everything it dominates, itself included
  retained_count INTEGER NOT NULL,
  distance INTEGER,               -- fewest references from a GC root (1: held by a root);
                                  -- weak maps' references not followed, as for idom
  PRIMARY KEY (dump_id, id)
) WITHOUT ROWID;

-- References between objects, in each object's order (seq); refs of weak holders included.
CREATE TABLE refs (
  dump_id INTEGER NOT NULL,
  from_id INTEGER NOT NULL,       -- objects.id
  seq INTEGER NOT NULL,           -- position among from_id's references
  to_id INTEGER NOT NULL,         -- objects.id
  name_id INTEGER,                -- strings.id: '@ivar', '[3]', ... (memprof dumps only)
  PRIMARY KEY (dump_id, from_id, seq)
) WITHOUT ROWID;

-- The GC roots: the virtual root's references, in order.
CREATE TABLE roots (
  dump_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  category_id INTEGER NOT NULL,   -- strings.id: 'vm', 'global_tbl', 'machine_context', ...
  target INTEGER NOT NULL,        -- objects.id
  PRIMARY KEY (dump_id, seq)
) WITHOUT ROWID;

-- The names of CLASS and MODULE records ('Foo', '#<Class:Foo>'), classes without instances too.
CREATE TABLE class_records (
  dump_id INTEGER NOT NULL,
  object INTEGER NOT NULL,        -- objects.id
  name_id INTEGER NOT NULL,       -- strings.id
  PRIMARY KEY (dump_id, object)
) WITHOUT ROWID;

-- Objects whose references do not keep their targets alive (ObjectSpace::WeakMap and kin).
CREATE TABLE weak_holders (
  dump_id INTEGER NOT NULL,
  object INTEGER NOT NULL,
  PRIMARY KEY (dump_id, object)
) WITHOUT ROWID;

-- The objects' and references' columns that heapq reads to reopen a dump, as raw arrays
-- (little-endian, in id order, split in chunks of at most 64 MiB): copying a few arrays is
-- much faster than stepping through millions of rows. A cache of objects and refs, never the
-- truth: the triggers below drop a dump's columns when its objects or refs change (heapq sql
-- --write), and heapq then reads the rows. name: address (u64), type (u8), class (u32),
-- memsize (u64), site (u32), generation (u32), edge_begin (u32, objects + 1), edge_target
-- (u32), edge_name (u32, with named references only); none is 0xffffffff.
CREATE TABLE graph_columns (
  dump_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  chunk INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (dump_id, name, chunk)
);

-- ObjectSpace dumps leave out the reference from each object to its class, which keeps the
-- class alive all the same: heapq adds it as the object's last reference for its analyses, and
-- keeps it here rather than in refs (it is not the dump's). name: target (u32 per object, in id
-- order, little-endian): the class object's id, or 0xffffffff where no edge was added (memprof
-- dumps, which write the class edge themselves; IMEMO objects; a class not in the dump; an
-- object that references its class anyway). The same chunks as graph_columns.
CREATE TABLE class_edges (
  dump_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  chunk INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (dump_id, name, chunk)
);

-- @after-rows

CREATE TRIGGER objects_insert_drops_columns AFTER INSERT ON objects
BEGIN DELETE FROM graph_columns WHERE dump_id = NEW.dump_id; END;
CREATE TRIGGER objects_delete_drops_columns AFTER DELETE ON objects
BEGIN DELETE FROM graph_columns WHERE dump_id = OLD.dump_id; END;
CREATE TRIGGER objects_update_drops_columns
AFTER UPDATE OF dump_id, id, address, type, class_id, memsize, site_id, generation ON objects
BEGIN DELETE FROM graph_columns WHERE dump_id IN (OLD.dump_id, NEW.dump_id); END;
CREATE TRIGGER refs_insert_drops_columns AFTER INSERT ON refs
BEGIN DELETE FROM graph_columns WHERE dump_id = NEW.dump_id; END;
CREATE TRIGGER refs_delete_drops_columns AFTER DELETE ON refs
BEGIN DELETE FROM graph_columns WHERE dump_id = OLD.dump_id; END;
CREATE TRIGGER refs_update_drops_columns AFTER UPDATE ON refs
BEGIN DELETE FROM graph_columns WHERE dump_id IN (OLD.dump_id, NEW.dump_id); END;

CREATE INDEX objects_by_address ON objects (dump_id, address);
CREATE INDEX refs_by_target ON refs (dump_id, to_id);

-- The views spell the ids out. Each keeps the integer keys of its tables (id, address,
-- from_id, ...), which joins and filters should use; address_hex and its kin are for reading.

-- Objects with their type, class name and allocation site spelled out.
CREATE VIEW objects_v AS
SELECT o.dump_id, o.id, o.address, printf('0x%x', o.address) AS address_hex, t.name AS type,
       cn.value AS class, o.memsize, o.site_id, sf.value AS file, s.line, sm.value AS method,
       g.name AS gem, g.version AS gem_version, o.generation,
       o.idom, o.retained_bytes, o.retained_count, o.distance
FROM objects o
JOIN types t ON t.id = o.type
LEFT JOIN classes c ON c.dump_id = o.dump_id AND c.id = o.class_id
LEFT JOIN strings cn ON cn.dump_id = c.dump_id AND cn.id = c.name_id
LEFT JOIN sites s ON s.dump_id = o.dump_id AND s.id = o.site_id
LEFT JOIN strings sf ON sf.dump_id = s.dump_id AND sf.id = s.file_id
LEFT JOIN strings sm ON sm.dump_id = s.dump_id AND sm.id = s.method_id
LEFT JOIN gems g ON g.id = s.gem_id;

-- References with both ends' addresses and classes, and the reference's name.
CREATE VIEW refs_v AS
SELECT r.dump_id, r.from_id, f.address AS from_address,
       printf('0x%x', f.address) AS from_address_hex, fcn.value AS from_class,
       r.seq, rn.value AS name,
       r.to_id, t.address AS to_address, printf('0x%x', t.address) AS to_address_hex,
       tcn.value AS to_class
FROM refs r
JOIN objects f ON f.dump_id = r.dump_id AND f.id = r.from_id
JOIN objects t ON t.dump_id = r.dump_id AND t.id = r.to_id
LEFT JOIN classes fc ON fc.dump_id = f.dump_id AND fc.id = f.class_id
LEFT JOIN strings fcn ON fcn.dump_id = fc.dump_id AND fcn.id = fc.name_id
LEFT JOIN classes tc ON tc.dump_id = t.dump_id AND tc.id = t.class_id
LEFT JOIN strings tcn ON tcn.dump_id = tc.dump_id AND tcn.id = tc.name_id
LEFT JOIN strings rn ON rn.dump_id = r.dump_id AND rn.id = r.name_id;

-- GC roots with their category and target.
CREATE VIEW roots_v AS
SELECT r.dump_id, r.seq, c.value AS category, r.target, o.address,
       printf('0x%x', o.address) AS address_hex
FROM roots r
JOIN strings c ON c.dump_id = r.dump_id AND c.id = r.category_id
JOIN objects o ON o.dump_id = r.dump_id AND o.id = r.target;

-- Allocation sites with their file, method and gem spelled out.
CREATE VIEW sites_v AS
SELECT s.dump_id, s.id, f.value AS file, s.line, m.value AS method,
       g.name AS gem, g.version AS gem_version
FROM sites s
JOIN strings f ON f.dump_id = s.dump_id AND f.id = s.file_id
LEFT JOIN strings m ON m.dump_id = s.dump_id AND m.id = s.method_id
LEFT JOIN gems g ON g.id = s.gem_id;

-- Statistics for SQLite's query planner (sqlite_stat1): without them it takes a search of a
-- whole dump by primary key for cheaper than the (dump_id, address) index as soon as a view
-- joins another table, and a join of two dumps compares every pair. Sampled statistics
-- (analysis_limit) guess a dump at a thousand rows. refs, the largest table, is left out: its
-- joins go by key (0.1 s for a million objects, instead of 0.2 s).
ANALYZE objects;
ANALYZE sites;
ANALYZE classes;
ANALYZE strings;
