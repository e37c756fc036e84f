// The photo library's catalogue tables (issue 18; SPEC S3, C9, D1–D4, E1, E7).

/// Schema step 3: assets (photo, Live, video) with their files (originals and
/// the current rendition), albums, tags, the import sources that make imports
/// incremental, and the set-aside list. A library's catalogue is a record
/// store (`RecordStore` with `RecordSchema.migrations`), so the organize
/// tables live beside these in the same file.
public enum LibrarySchema {
    /// Appended to `RecordSchema.migrations`.
    public static let migration = RecordStoreMigration(version: 3, name: "photo library (issue 18)", statements: [
        """
        CREATE TABLE library_assets (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('photo', 'live', 'video')),  -- of the original
            capture_date TEXT,                    -- Exif "YYYY:MM:DD HH:MM:SS" as the file says; NULL = unknown
            captured_at_ms INTEGER,               -- the same read as UTC, for ordering
            latitude REAL,                        -- NULL = no location
            longitude REAL,
            width INTEGER NOT NULL,               -- upright pixels of the original
            height INTEGER NOT NULL,
            duration_ms INTEGER NOT NULL DEFAULT 0,
            content_identifier TEXT,              -- Live pairing (still MakerNote = movie metadata)
            favorite INTEGER NOT NULL DEFAULT 0,
            hidden INTEGER NOT NULL DEFAULT 0,
            origin TEXT NOT NULL CHECK (origin IN ('import', 'conversion', 'creation')),
            source_asset_id INTEGER REFERENCES library_assets(id) ON DELETE SET NULL,
            added_at_ms INTEGER NOT NULL,
            deleted_at_ms INTEGER,                -- in Recently Deleted since (D1); NULL = in the library
            CHECK ((latitude IS NULL) = (longitude IS NULL))
        )
        """,
        // The timeline (by date, Recently Deleted left out) is read from this index alone
        // (deleted_at_ms is a column too: SQLite reads a partial index's own condition from it).
        """
        CREATE INDEX library_timeline ON library_assets(captured_at_ms, id, kind, favorite, hidden, deleted_at_ms)
            WHERE deleted_at_ms IS NULL
        """,
        "CREATE INDEX library_assets_by_identifier ON library_assets(content_identifier) WHERE content_identifier IS NOT NULL",
        """
        CREATE TABLE library_files (
            id INTEGER PRIMARY KEY,
            asset_id INTEGER NOT NULL REFERENCES library_assets(id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('original', 'original_movie', 'rendition', 'rendition_movie')),
            path TEXT NOT NULL UNIQUE,            -- relative to the library folder
            bytes INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            width INTEGER NOT NULL DEFAULT 0,     -- upright pixels (stills; movies: display size)
            height INTEGER NOT NULL DEFAULT 0,
            UNIQUE (asset_id, role)
        )
        """,
        "CREATE INDEX library_files_by_digest ON library_files(sha256)",
        """
        CREATE TABLE library_albums (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            created_at_ms INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE library_album_members (
            album_id INTEGER NOT NULL REFERENCES library_albums(id) ON DELETE CASCADE,
            asset_id INTEGER NOT NULL REFERENCES library_assets(id) ON DELETE CASCADE,
            added_at_ms INTEGER NOT NULL,
            PRIMARY KEY (album_id, asset_id)
        )
        """,
        "CREATE INDEX library_album_members_by_asset ON library_album_members(asset_id)",
        """
        CREATE TABLE library_tags (
            asset_id INTEGER NOT NULL REFERENCES library_assets(id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (asset_id, tag)
        )
        """,
        """
        CREATE TABLE library_sources (
            path TEXT PRIMARY KEY NOT NULL,       -- absolute path of an imported file
            bytes INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            asset_id INTEGER NOT NULL REFERENCES library_assets(id) ON DELETE CASCADE,
            imported_at_ms INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE library_set_aside (
            asset_id INTEGER PRIMARY KEY REFERENCES library_assets(id) ON DELETE CASCADE,
            set_aside_at_ms INTEGER NOT NULL
        )
        """,
    ])

    /// Schema step 7: the crash journal (`library_pending`), and organize's
    /// records point at the library asset they are
    /// (filled when organize scans a library, `OrganizeStore(libraryRoot:)`), so
    /// organize's "set aside" decisions for library assets are written to
    /// `library_set_aside` — the one list D1's delete reads — and never to
    /// `organize_set_aside`. A purged asset takes its organize record with it.
    public static let organizeLinkMigration = RecordStoreMigration(version: 7, name: "organize on a library: one set-aside list (issue 18)", statements: [
        "ALTER TABLE organize_assets ADD COLUMN library_asset_id INTEGER REFERENCES library_assets(id) ON DELETE CASCADE",
        "CREATE INDEX organize_assets_by_library_asset ON organize_assets(library_asset_id) WHERE library_asset_id IS NOT NULL",
        // The crash journal: relative paths a file change is about to touch, committed
        // before it renames anything and cleared in the commit that names the result,
        // so recovery after a kill looks at these paths only (not the whole folder).
        """
        CREATE TABLE library_pending (
            path TEXT PRIMARY KEY NOT NULL,
            since_ms INTEGER NOT NULL
        )
        """,
    ])
}
