// The record store's organize tables (issue 9; SPEC D1–D10, G5).

/// Schema step 2: assets and their fingerprints, groups with each member's
/// qualification snapshot (SPEC D7), batch decisions (D4, D6), the set-aside
/// list (D1), user marks and Life overrides (D6, D9), recognized text (D9)
/// and counters written once on leave (G5).
public enum OrganizeSchema {
    /// Appended to `RecordSchema.migrations`.
    public static let migration = RecordStoreMigration(version: 2, name: "organize (SPEC D1-D10, G5)", statements: [
        """
        CREATE TABLE organize_assets (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            media_type TEXT NOT NULL CHECK (media_type IN ('photo', 'video')),
            width INTEGER NOT NULL,
            height INTEGER NOT NULL,
            duration_ms INTEGER NOT NULL DEFAULT 0,
            file_bytes INTEGER NOT NULL,
            full_resource_bytes INTEGER,          -- incl. pre-edit originals; NULL = not measurable (D2)
            captured_at_ms INTEGER,               -- Exif capture time read as UTC; NULL = unknown
            has_camera INTEGER NOT NULL DEFAULT 0,
            screenshot INTEGER NOT NULL DEFAULT 0,        -- a real marker, never "no camera data" (D9)
            screen_recording INTEGER NOT NULL DEFAULT 0,
            animated INTEGER NOT NULL DEFAULT 0,
            burst_id TEXT,                        -- the system's burst identifier (D8)
            burst_representative INTEGER NOT NULL DEFAULT 0,
            favorite INTEGER NOT NULL DEFAULT 0,
            recognized_text TEXT,                 -- OCR text, filled by `organize scan --ocr` (D9)
            scanned_at_ms INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE organize_fingerprints (
            asset_id INTEGER PRIMARY KEY REFERENCES organize_assets(id) ON DELETE CASCADE,
            file_sha256 TEXT NOT NULL,
            pixel_sha256 TEXT NOT NULL,
            phash INTEGER NOT NULL,               -- 64 bits stored as a signed integer
            quality REAL                          -- NULL = no score
        )
        """,
        "CREATE INDEX organize_fingerprints_pixel ON organize_fingerprints(pixel_sha256)",
        """
        CREATE TABLE organize_groups (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('duplicate', 'similar', 'burst')),
            evidence TEXT,                        -- duplicate: the shared pixel SHA-256; burst: the system burst id
            system_representative INTEGER,        -- burst: the asset the system chose
            created_at_ms INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE organize_group_members (
            group_id INTEGER NOT NULL REFERENCES organize_groups(id) ON DELETE CASCADE,
            asset_id INTEGER NOT NULL REFERENCES organize_assets(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            -- qualification snapshot taken when the group was formed (D7)
            q_media_type TEXT NOT NULL,
            q_width INTEGER NOT NULL,
            q_height INTEGER NOT NULL,
            q_duration_ms INTEGER NOT NULL,
            q_file_bytes INTEGER NOT NULL,
            q_pixel_sha256 TEXT NOT NULL,
            PRIMARY KEY (group_id, asset_id)
        )
        """,
        """
        CREATE TABLE organize_decisions (
            group_id INTEGER PRIMARY KEY REFERENCES organize_groups(id) ON DELETE CASCADE,
            action TEXT NOT NULL CHECK (action IN ('keep_one', 'set_all_aside')),
            keeper_asset_id INTEGER,
            batch_id INTEGER NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('pending', 'done')),  -- shown as organized only when done (D4)
            decided_at_ms INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE organize_set_aside (
            asset_id INTEGER PRIMARY KEY REFERENCES organize_assets(id) ON DELETE CASCADE,
            group_id INTEGER,
            set_aside_at_ms INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE organize_marks (
            asset_id INTEGER PRIMARY KEY REFERENCES organize_assets(id) ON DELETE CASCADE,
            keeper INTEGER NOT NULL DEFAULT 0,    -- the user marked it as the one to keep (D6)
            life_override TEXT CHECK (life_override IN ('life', 'not_life'))  -- D9 user override
        )
        """,
        """
        CREATE TABLE organize_stats (
            key TEXT PRIMARY KEY NOT NULL,
            value INTEGER NOT NULL
        )
        """,
    ])

    /// Schema step 5 (issue 22): what the keeper score and an incremental scan
    /// need — the coding, the file's modification time, and a Live photo's movie.
    public static let scanMigration = RecordStoreMigration(version: 5, name: "organize: formats, Live movies, incremental scans (issue 22)", statements: [
        "ALTER TABLE organize_assets ADD COLUMN format TEXT NOT NULL DEFAULT ''",  // jpeg, png, heif, movie
        "ALTER TABLE organize_assets ADD COLUMN file_modified_ms INTEGER",  // NULL = unknown: scan again
        "ALTER TABLE organize_assets ADD COLUMN content_identifier TEXT",  // the Live pairing key
        "ALTER TABLE organize_assets ADD COLUMN paired_path TEXT",  // a Live photo's movie
        "ALTER TABLE organize_assets ADD COLUMN paired_bytes INTEGER",
        "ALTER TABLE organize_assets ADD COLUMN paired_modified_ms INTEGER",
        "ALTER TABLE organize_fingerprints ADD COLUMN phash_turned TEXT",  // three 64-bit hashes in hex, comma-separated
    ])

    /// Schema step 8: a photo's exact-content evidence now covers its gain map
    /// (two photos that agree only in SDR are no longer exact duplicates), so
    /// every JPEG and HEIF still is fingerprinted again by the next scan. A
    /// duplicate group formed from the old evidence no longer verifies (SPEC D7).
    public static let gainMapEvidenceMigration = RecordStoreMigration(version: 8, name: "organize: gain maps in the content evidence", statements: [
        "UPDATE organize_assets SET file_modified_ms = NULL WHERE format IN ('jpeg', 'heif')",
    ])

    /// Schema step 9: a movie is now read as a player shows it — the spans its
    /// edit list shows, pictures that start after the sound, non-square pixels
    /// in their displayed shape, MP4 `udta` dates and places — so its length,
    /// dates and frame fingerprints change. Every movie is read again by the
    /// next scan, or an old record would never match a new copy of itself.
    public static let movieReadingMigration = RecordStoreMigration(version: 9, name: "organize: movies read as players show them", statements: [
        "UPDATE organize_assets SET file_modified_ms = NULL WHERE format = 'movie'",
    ])
}

