// The catalogue's search tables (issue 21; SPEC Q1–Q3).

/// Schema step 4: the words each asset is found by, a trigram full-text index
/// over them, the queue that keeps them in step with the catalogue, and the
/// counters behind SPEC Q3's late-batch rule.
///
/// - `library_assets.camera`: Exif Make + Model (QuickTime make + model for movies).
/// - `library_search_words`: one row per asset, the folded (`SearchFolding`)
///   words it is found by, one field per line: file names, albums, tags,
///   camera, recognized text, place names.
/// - `library_search_fts`: FTS5 with the trigram tokenizer over those words
///   (external content: the words are stored once), kept in step by triggers.
/// - `library_search_stale` / `library_search_stale_paths`: assets whose words
///   must be rebuilt. Triggers on every table the words come from fill them,
///   so no writer can forget; the words are rebuilt (in Swift: folding is
///   Foundation's Unicode tables, not SQL) before the next search reads them.
/// - `library_change_state`: `changes` counts real library changes (assets,
///   files, tags, albums, recognized text); `token` also moves for writes that
///   cannot change a result (recent searches, the set-aside list, rebuilding
///   the words). SPEC Q3 rejects a late batch on the first, never on the second alone.
public enum LibrarySearchSchema {
    /// Appended to `RecordSchema.migrations`.
    public static let migration = RecordStoreMigration(version: 4, name: "library search (issue 21)", statements: [
        "ALTER TABLE library_assets ADD COLUMN camera TEXT",   // "Apple iPhone 15 Plus"; NULL = unknown
        """
        CREATE TABLE library_search_words (
            asset_id INTEGER PRIMARY KEY REFERENCES library_assets(id) ON DELETE CASCADE,
            words TEXT NOT NULL                   -- SearchFolding.fold of each field, one per line
        )
        """,
        """
        CREATE VIRTUAL TABLE library_search_fts USING fts5(
            words, content='library_search_words', content_rowid='asset_id', tokenize='trigram')
        """,
        """
        CREATE TRIGGER library_search_words_ai AFTER INSERT ON library_search_words BEGIN
            INSERT INTO library_search_fts(rowid, words) VALUES (new.asset_id, new.words);
        END
        """,
        """
        CREATE TRIGGER library_search_words_ad AFTER DELETE ON library_search_words BEGIN
            INSERT INTO library_search_fts(library_search_fts, rowid, words) VALUES ('delete', old.asset_id, old.words);
        END
        """,
        """
        CREATE TRIGGER library_search_words_au AFTER UPDATE ON library_search_words BEGIN
            INSERT INTO library_search_fts(library_search_fts, rowid, words) VALUES ('delete', old.asset_id, old.words);
            INSERT INTO library_search_fts(rowid, words) VALUES (new.asset_id, new.words);
        END
        """,
        "CREATE TABLE library_search_stale (asset_id INTEGER PRIMARY KEY)",
        "CREATE TABLE library_search_stale_paths (path TEXT PRIMARY KEY NOT NULL)",   // organize rows (absolute paths)
        """
        CREATE TABLE library_change_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            changes INTEGER NOT NULL,
            token INTEGER NOT NULL
        )
        """,
        "INSERT INTO library_change_state(id, changes, token) VALUES (1, 0, 0)",
        "INSERT INTO library_search_stale(asset_id) SELECT id FROM library_assets",   // a library made before this step
    ] + changeTriggers)

    /// One trigger per event that changes what an asset is found by.
    private static let changeTriggers: [String] = {
        let change = "UPDATE library_change_state SET changes = changes + 1, token = token + 1 WHERE id = 1;"
        let tokenOnly = "UPDATE library_change_state SET token = token + 1 WHERE id = 1;"
        // Never "INSERT OR IGNORE" in a trigger body: the statement that fires
        // the trigger imposes its own conflict policy on it (an UPSERT into
        // organize_assets turned the IGNORE into an abort). These inserts
        // cannot conflict at all.
        func stale(_ row: String) -> String {
            "INSERT INTO library_search_stale(asset_id) SELECT \(row) "
                + "WHERE NOT EXISTS (SELECT 1 FROM library_search_stale WHERE asset_id = \(row));"
        }
        func stalePath(_ path: String) -> String {
            "INSERT INTO library_search_stale_paths(path) SELECT \(path) "
                + "WHERE NOT EXISTS (SELECT 1 FROM library_search_stale_paths WHERE path = \(path));"
        }
        func trigger(_ name: String, _ event: String, _ body: String) -> String {
            "CREATE TRIGGER \(name) AFTER \(event) BEGIN \(body) END"
        }
        return [
            trigger("library_assets_search_ai", "INSERT ON library_assets", stale("new.id") + change),
            trigger("library_assets_search_au", "UPDATE ON library_assets", stale("new.id") + change),
            trigger("library_assets_search_ad", "DELETE ON library_assets",
                    "DELETE FROM library_search_stale WHERE asset_id = old.id;" + change),
            trigger("library_files_search_ai", "INSERT ON library_files", stale("new.asset_id") + change),
            trigger("library_files_search_au", "UPDATE OF path, role ON library_files", stale("new.asset_id") + change),
            trigger("library_files_search_ad", "DELETE ON library_files", stale("old.asset_id") + change),
            trigger("library_tags_search_ai", "INSERT ON library_tags", stale("new.asset_id") + change),
            trigger("library_tags_search_ad", "DELETE ON library_tags", stale("old.asset_id") + change),
            trigger("library_album_members_search_ai", "INSERT ON library_album_members", stale("new.asset_id") + change),
            trigger("library_album_members_search_ad", "DELETE ON library_album_members", stale("old.asset_id") + change),
            trigger("library_albums_search_au", "UPDATE OF name ON library_albums",
                    "INSERT INTO library_search_stale(asset_id) SELECT DISTINCT m.asset_id FROM library_album_members m "
                        + "WHERE m.album_id = new.id AND NOT EXISTS "
                        + "(SELECT 1 FROM library_search_stale s WHERE s.asset_id = m.asset_id);" + change),
            // Organize keys its rows by absolute path; the rebuild maps them to library files.
            trigger("organize_assets_search_ai", "INSERT ON organize_assets",
                    stalePath("new.path") + change),
            trigger("organize_assets_search_au", "UPDATE OF recognized_text ON organize_assets",
                    stalePath("new.path") + change),
            trigger("recent_searches_token_ai", "INSERT ON recent_searches", tokenOnly),
            trigger("recent_searches_token_au", "UPDATE ON recent_searches", tokenOnly),
            trigger("recent_searches_token_ad", "DELETE ON recent_searches", tokenOnly),
            trigger("library_set_aside_token_ai", "INSERT ON library_set_aside", tokenOnly),
            trigger("library_set_aside_token_ad", "DELETE ON library_set_aside", tokenOnly),
        ]
    }()
}
