import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying library …` (issue 18): the photo library, a thin shell over `PhotoLibrary`.
enum LibraryCommand {
    static let libraryRequired = OptionSpec.path("library", "DIR", "the photo library (made by `shiying library init`)",
                                                 required: true)
    static let ids = OperandSpec("ID", .oneOrMore, "asset ids (also comma-separated)", missing: "no asset ids")

    /// A subcommand on an open library: `--library DIR` and `--json` are always in its table.
    private static func action(_ name: String, _ summary: String, operands: [OperandSpec] = [], options: [OptionSpec] = [],
                               _ body: @escaping @Sendable (ParsedArguments, PhotoLibrary) throws -> Int32) -> CommandSpec {
        CommandSpec(path: ["library", name], summary: summary, operands: operands,
                    options: options + [libraryRequired, .json],
                    run: { parsed in try body(parsed, try PhotoLibrary(at: parsed.string("library")!)) })
    }

    static let spec = CommandSpec(
        path: ["library"], summary: "the photo library: a folder + SQLite catalogue (issue 18; SPEC S3, C9, D1–D8, E1, E7)",
        subcommands: [
            CommandSpec(path: ["library", "init"], summary: "make a new, empty library",
                        operands: [OperandSpec("DIR", .one, "the library's folder")], options: [.json],
                        run: { parsed in
                            let library = try PhotoLibrary.create(at: parsed.positionals[0])
                            try emit(["library": library.folder.root], json: parsed.json) { "library \(library.folder.root) ready" }
                            return 0
                        }),
            action("import", "import photos, Live pairs and videos (files or folders); exit 1 when a file was skipped",
                   operands: [OperandSpec("PATH", .oneOrMore, "files or folders", missing: "library import needs PATH...")],
                   options: [.int("batch", "N", 1...10_000, "assets per catalogue commit", default: 256)]) { parsed, library in
                try importFiles(parsed.positionals, library, batch: parsed.int("batch") ?? 256, json: parsed.json)
            },
            action("list", "list the assets of a scope or album",
                   options: [.choice("scope", ["library", "recently-deleted", "set-aside", "all"], "which assets",
                                     default: "library"),
                             .text("album", "NAME", "only this album's assets")]) { parsed, library in
                try list(parsed, library)
            },
            action("favorite", "mark assets as favourites (--off: unmark)", operands: [ids],
                   options: [.flag("off", "unmark")]) { parsed, library in
                let ids = try assetIDs(parsed.positionals)
                let on = !parsed.has("off")
                try blocking { try await library.setFavorite(on, ids) }
                return try show(ids, library, json: parsed.json)
            },
            action("hide", "hide assets (--off: show them again)", operands: [ids],
                   options: [.flag("off", "show again")]) { parsed, library in
                let ids = try assetIDs(parsed.positionals)
                let on = !parsed.has("off")
                try blocking { try await library.setHidden(on, ids) }
                return try show(ids, library, json: parsed.json)
            },
            action("tag", "add or remove tags", operands: [ids],
                   options: [.text("add", "T,T…", "tags to add"), .text("remove-tags", "T,T…", "tags to remove")]) { parsed, library in
                try tag(parsed, parsed.positionals, library)
            },
            action("album", "add assets to an album (--remove: take them out)",
                   operands: [OperandSpec("NAME", .one, "the album"), ids],
                   options: [.flag("remove", "take the assets out of the album")]) { parsed, library in
                let name = parsed.positionals[0]
                let ids = try assetIDs(Array(parsed.positionals.dropFirst()))
                let remove = parsed.has("remove")
                try blocking { remove ? try await library.removeFromAlbum(name, ids) : try await library.addToAlbum(name, ids) }
                return try show(ids, library, json: parsed.json)
            },
            action("edit", "edit a photo or Live photo with a recipe, as a new version (SPEC E1, E7)",
                   operands: [OperandSpec("ID", .one, "the asset id")],
                   options: [.path("recipe", "R.json", "the edit recipe", required: true),
                             .path("from", "PROXY", "render from this proxy (refused unless proven full size, SPEC E7)")]) { parsed, library in
                try edit(parsed, parsed.positionals, library)
            },
            action("revert", "back to the original", operands: [ids]) { parsed, library in
                let ids = try assetIDs(parsed.positionals)
                for id in ids { _ = try blocking { try await library.revert(id) } }
                return try show(ids, library, json: parsed.json)
            },
            action("set-aside", "set assets aside (--keep: keep them after all)", operands: [ids],
                   options: [.flag("keep", "keep them: no longer set aside")]) { parsed, library in
                let ids = try assetIDs(parsed.positionals)
                let keep = parsed.has("keep")
                try blocking { keep ? try await library.keep(ids) : try await library.setAside(ids) }
                return try show(ids, library, json: parsed.json)
            },
            action("delete", "move assets to Recently Deleted, after the confirmation (SPEC D1)", operands: [ids],
                   options: [.flag("yes", "answer the confirmation (needed without a terminal)")]) { parsed, library in
                try delete(parsed.positionals, library, confirmed: parsed.has("yes"), json: parsed.json)
            },
            action("restore", "bring assets back from Recently Deleted; exit 1 unless all came back", operands: [ids]) { parsed, library in
                let ids = try assetIDs(parsed.positionals)
                let restored = try blocking { try await library.restore(ids) }
                try emit(["restored": restored], json: parsed.json) { "restored \(restored.count) of \(ids.count)" }
                return restored.count == ids.count ? 0 : 1
            },
            action("purge", "empty Recently Deleted of what has expired (--all: everything)",
                   options: [.flag("all", "everything in Recently Deleted")]) { parsed, library in
                let everything = parsed.has("all")
                let report = try blocking { try await library.purge(everything: everything) }
                try emit(report, json: parsed.json) {
                    "purged \(report.purged.count) from Recently Deleted, \(SetAsideDeletion.byteText(report.freedBytes)) freed"
                }
                return 0
            },
            action("recover", "finish or undo what an interrupted run left (staging files, orphans); name catalogued files "
                   + "gone from the folder (exit 1; importing an original's source again restores it)") { parsed, library in
                let report = try blocking { try await library.recoverNow() }
                for m in report.missing {
                    writeStderr(Data("shiying: missing \(library.folder.absolute(m.path)) (asset \(m.assetID), \(m.role.rawValue))\n".utf8))
                }
                try emit(report, json: parsed.json) {
                    "removed \(report.stagingRemoved) staging files and \(report.orphansRemoved) orphans; put back \(report.filesPutBack) files"
                        + (report.missing.isEmpty ? "" : "; \(report.missing.count) catalogued files missing")
                }
                return report.missing.isEmpty ? 0 : 1
            },
            action("compress", "a compressed copy of the current version (the edit when edited) into 「拾映转换」, the original kept (SPEC S3, D5)",
                   operands: [OperandSpec("ID", .one, "the asset id")], options: CompressCommand.compressionOptions) { parsed, library in
                let ids = try assetIDs(parsed.positionals)
                guard ids.count == 1 else { throw UsageError("library compress takes one asset id") }
                return try CompressCommand.compress(parsed, ids[0], library)
            },
            action("undo-compress", "undo a compression: the original kept, the copy set aside (SPEC D5)",
                   operands: [OperandSpec("ID", .one, "the compressed copy's asset id")]) { parsed, library in
                try CompressCommand.undo(parsed.positionals, library, json: parsed.json)
            },
        ])

    // MARK: - import

    private static func importFiles(_ paths: [String], _ library: PhotoLibrary, batch: Int, json: Bool) throws -> Int32 {
        guard !paths.isEmpty else { throw UsageError("library import needs PATH...") }
        let progress = ProgressReporter(label: "library import")
        defer { progress.finish() }
        let report = try blocking {
            try await library.importFiles(paths, reader: EngineMediaReader(), batchSize: batch, progress: progress.report)
        }
        progress.finish()
        for s in report.skipped { writeStderr(Data("shiying: skipped \(s.path): \(s.error)\n".utf8)) }
        try emit(report, json: json) {
            "imported \(report.imported.count) (\(report.photos) photos, \(report.lives) Live, \(report.videos) videos), "
                + "\(report.completedLive) completed Live, \(report.unchanged) unchanged, \(report.duplicates) duplicates, "
                + (report.restored > 0 ? "\(report.restored) missing originals restored, " : "")
                + (report.undeleted.isEmpty ? "" : "\(report.undeleted.count) brought back from Recently Deleted, ")
                + "\(report.skipped.count) skipped in \(String(format: "%.2f", report.seconds)) s"
        }
        return report.skipped.isEmpty ? 0 : 1 // a file that could not be read or copied (named above)
    }

    // MARK: - list

    /// One asset as `library list --json` prints it (one object per line; every key present).
    struct AssetLine: Encodable {
        var asset: LibraryAsset
        var root: LibraryFolder

        enum Keys: String, CodingKey {
            case id, kind, originalKind = "original_kind", files, originalFiles = "original_files",
                 captureDate = "capture_date", gps, favorite, hidden, albums, tags, width, height,
                 durationMs = "duration_ms", contentIdentifier = "content_identifier", edited, origin,
                 sourceAssetID = "source_asset_id", setAside = "set_aside", deletedAtMs = "deleted_at_ms"
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(asset.id, forKey: .id)
            try c.encode(asset.kind.rawValue, forKey: .kind)
            try c.encode(asset.originalKind.rawValue, forKey: .originalKind)
            try c.encode(asset.currentFiles.map { root.absolute($0.path) }, forKey: .files)
            try c.encode(asset.allFiles.filter { !$0.role.isRendition }.map { root.absolute($0.path) }, forKey: .originalFiles)
            try c.encode(asset.captureDate, forKey: .captureDate)
            try c.encode(asset.location, forKey: .gps)
            try c.encode(asset.favorite, forKey: .favorite)
            try c.encode(asset.hidden, forKey: .hidden)
            try c.encode(asset.albums, forKey: .albums)
            try c.encode(asset.tags, forKey: .tags)
            // the current version's size and length (an edit's rendition: a crop is smaller; a border makes
            // a Live photo a still), as `files` are the current version's
            let current = asset.currentFiles.first
            try c.encode(current?.width ?? asset.width, forKey: .width)
            try c.encode(current?.height ?? asset.height, forKey: .height)
            try c.encode(asset.kind == .photo ? 0 : asset.durationMs, forKey: .durationMs)
            try c.encode(asset.contentIdentifier, forKey: .contentIdentifier)
            try c.encode(asset.edited, forKey: .edited)
            try c.encode(asset.origin.rawValue, forKey: .origin)
            try c.encode(asset.sourceAssetID, forKey: .sourceAssetID)
            try c.encode(asset.setAside, forKey: .setAside)
            try c.encode(asset.deletedAtMs, forKey: .deletedAtMs)
        }
    }

    private static func list(_ parsed: ParsedArguments, _ library: PhotoLibrary) throws -> Int32 {
        guard let scope = parsed.string("scope").flatMap(PhotoLibrary.Scope.init(rawValue:)) else {
            preconditionFailure("the table's scopes are the library's")
        }
        let album = parsed.string("album")
        let assets = try blocking { try await library.list(scope, album: album) }
        for asset in assets {
            if parsed.json {
                print(try JSONReport.line(AssetLine(asset: asset, root: library.folder)))
            } else {
                let flags = (asset.favorite ? " ♥" : "") + (asset.edited ? " edited" : "") + (asset.hidden ? " hidden" : "")
                print("\(asset.id) \(asset.kind.rawValue) \(asset.captureDate ?? "undated")\(flags) "
                      + asset.currentFiles.map { library.folder.absolute($0.path) }.joined(separator: " "))
            }
        }
        return 0
    }

    private static func show(_ ids: [Int64], _ library: PhotoLibrary, json: Bool) throws -> Int32 {
        let assets = try blocking { try await library.assets(ids) }
        for asset in assets {
            if json {
                print(try JSONReport.line(AssetLine(asset: asset, root: library.folder)))
            } else {
                print("\(asset.id) \(asset.kind.rawValue) favorite=\(asset.favorite) albums=\(asset.albums) tags=\(asset.tags)")
            }
        }
        return 0
    }

    // MARK: - tag, edit, delete

    private static func tag(_ parsed: ParsedArguments, _ operands: [String], _ library: PhotoLibrary) throws -> Int32 {
        let ids = try assetIDs(operands)
        let split = { (text: String) in text.split(separator: ",").map(String.init) }
        if let add = parsed.string("add") {
            try blocking { try await library.addTags(split(add), to: ids) }
        } else if let remove = parsed.string("remove-tags") {
            try blocking { try await library.removeTags(split(remove), from: ids) }
        } else {
            throw UsageError("library tag ID... --add T,T… (or --remove-tags T,T…)")
        }
        return try show(ids, library, json: parsed.has("json"))
    }

    private static func edit(_ parsed: ParsedArguments, _ operands: [String], _ library: PhotoLibrary) throws -> Int32 {
        guard let id = Int64(operands[0]) else { throw UsageError("bad asset id \(operands[0])") }
        guard let recipePath = parsed.string("recipe") else { preconditionFailure("required by the table") }
        let recipe = try EditCommand.loadRecipe(recipePath)
        let proxy = parsed.string("from")
        let progress = ProgressReporter(label: "library edit")
        defer { progress.finish() }
        do {
            _ = try progress.waiting("rendering and saving") {
                try blocking { try await LibraryWorkflows.edit(id, recipe: recipe, in: library, renderingFrom: proxy) }
            }
            progress.finish()
        } catch let error as FullSizeGateError {
            // SPEC E7: not proven full size: nothing written
            writeStderr(Data("shiying: \(error.message)\n".utf8))
            if parsed.json { print(try JSONReport.line(["error": error.message])) }
            return 1
        }
        return try show([id], library, json: parsed.has("json"))
    }

    private static func delete(_ operands: [String], _ library: PhotoLibrary, confirmed: Bool, json: Bool) throws -> Int32 {
        let ids = try assetIDs(operands)
        let interactive = isatty(0) != 0
        // SPEC D1: the system's confirmation still appears; --yes answers it.
        let report = try blocking {
            try await library.delete(ids) { request in
                if confirmed { return true }
                guard interactive else { return false }
                writeStderr(Data("\(request.freed.text)\n删除 \(request.items.count) 项？它们会在「最近删除」保留 \(request.recentlyDeletedDays) 天。[y/N] ".utf8))
                return (readLine() ?? "").lowercased().hasPrefix("y")
            }
        }
        if !report.confirmed && !confirmed && !interactive {
            writeStderr(Data("shiying: not deleted: confirm with --yes (no terminal to ask)\n".utf8))
        }
        for message in [report.notVisibleMessage, report.refusedMessage].compactMap({ $0 }) {
            writeStderr(Data("shiying: \(message)\n".utf8))
        }
        try emit(report, json: json) {
            report.confirmed ? "deleted \(report.deleted.count) into Recently Deleted; \(report.freedText)" : "nothing deleted"
        }
        return report.confirmed && report.deleted.count == ids.count ? 0 : 1
    }

    // MARK: - helpers

    static func assetIDs(_ operands: [String]) throws -> [Int64] {
        guard !operands.isEmpty else { throw UsageError("no asset ids") }
        return try operands.flatMap { $0.split(separator: ",") }.map {
            guard let id = Int64($0) else { throw UsageError("bad asset id \($0)") }
            return id
        }
    }

    static func emit<T: Encodable>(_ value: T, json: Bool, text: () -> String) throws {
        print(json ? try JSONReport.line(value) : text())
    }
}
