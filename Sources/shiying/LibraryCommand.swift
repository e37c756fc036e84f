import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying library …` (issue 18): the photo library, a thin shell over `PhotoLibrary`.
enum LibraryCommand {
    static let usage = """
        shiying library init DIR [--json]
          shiying library import PATH... --library DIR [--batch N] [--json]   (N assets per catalogue commit, default 256)
          shiying library list --library DIR [--scope library|recently-deleted|set-aside|all] [--album NAME] [--json]
          shiying library favorite ID... [--off] --library DIR [--json]
          shiying library hide ID... [--off] --library DIR [--json]
          shiying library tag ID... (--add T,T… | --remove-tags T,T…) --library DIR [--json]
          shiying library album NAME ID... [--remove] --library DIR [--json]
          shiying library edit ID --recipe R.json [--from PROXY] --library DIR [--json]
          shiying library revert ID --library DIR [--json]
          shiying library set-aside ID... [--keep] --library DIR [--json]
          shiying library delete ID... [--yes] --library DIR [--json]
          shiying library restore ID... --library DIR [--json]
          shiying library purge [--all] --library DIR [--json]
          shiying library recover --library DIR [--json]
          shiying library compress ID [--format heic|jpeg] [--quality Q (75)] [--bitrate BPS] [--allow-sdr] --library DIR [--json]
          shiying library undo-compress ID --library DIR [--json]
        """

    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, booleans: ["json", "off", "remove", "keep", "yes", "all", "allow-sdr"])
        try parsed.rejectUnknown(["library", "scope", "album", "add", "remove-tags", "recipe", "from", "batch",
                                  "format", "quality", "bitrate"])
        guard let action = parsed.positionals.first else { throw UsageError("usage:\n\(usage)") }
        let operands = Array(parsed.positionals.dropFirst())
        let json = parsed.has("json")
        do {
            if action == "init" {
                guard operands.count == 1 else { throw UsageError("library init takes one DIR") }
                let library = try PhotoLibrary.create(at: operands[0])
                try emit(["library": library.folder.root], json: json) { "library \(library.folder.root) ready" }
                return 0
            }
            guard let dir = parsed.options["library"] else { throw UsageError("library \(action) needs --library DIR\nusage:\n\(usage)") }
            let library = try PhotoLibrary(at: dir)
            switch action {
            case "import": return try importFiles(operands, library, batch: try parsed.int("batch", in: 1...10_000) ?? 256, json: json)
            case "list": return try list(parsed, library)
            case "favorite", "hide":
                let ids = try assetIDs(operands)
                try blocking {
                    action == "favorite" ? try await library.setFavorite(!parsed.has("off"), ids)
                                         : try await library.setHidden(!parsed.has("off"), ids)
                }
                return try show(ids, library, json: json)
            case "tag": return try tag(parsed, operands, library)
            case "album":
                guard let name = operands.first else { throw UsageError("library album NAME ID...") }
                let ids = try assetIDs(Array(operands.dropFirst()))
                try blocking {
                    parsed.has("remove") ? try await library.removeFromAlbum(name, ids) : try await library.addToAlbum(name, ids)
                }
                return try show(ids, library, json: json)
            case "edit": return try edit(parsed, operands, library)
            case "revert":
                let ids = try assetIDs(operands)
                for id in ids { _ = try blocking { try await library.revert(id) } }
                return try show(ids, library, json: json)
            case "set-aside":
                let ids = try assetIDs(operands)
                try blocking { parsed.has("keep") ? try await library.keep(ids) : try await library.setAside(ids) }
                return try show(ids, library, json: json)
            case "compress":
                let ids = try assetIDs(operands)
                guard ids.count == 1 else { throw UsageError("library compress takes one asset id") }
                return try CompressCommand.compress(parsed, ids[0], library)
            case "undo-compress": return try CompressCommand.undo(operands, library, json: json)
            case "delete": return try delete(operands, library, confirmed: parsed.has("yes"), json: json)
            case "restore":
                let restored = try blocking { try await library.restore(try assetIDs(operands)) }
                try emit(["restored": restored], json: json) { "restored \(restored.count) of \(operands.count)" }
                return restored.count == operands.count ? 0 : 1
            case "purge":
                let report = try blocking { try await library.purge(everything: parsed.has("all")) }
                try emit(report, json: json) {
                    "purged \(report.purged.count) from Recently Deleted, \(SetAsideDeletion.byteText(report.freedBytes)) freed"
                }
                return 0
            case "recover":
                let report = try blocking { try await library.recoverNow() }
                try emit(report, json: json) {
                    "removed \(report.stagingRemoved) staging files and \(report.orphansRemoved) orphans; put back \(report.filesPutBack) files"
                }
                return 0
            default: throw UsageError("unknown library action \(action)\nusage:\n\(usage)")
            }
        } catch let error as LibraryError {
            // SPEC D4 and the library's other failures: the sentence, then the cause
            FileHandle.standardError.write(Data("shiying: \(error.description)\n".utf8))
            if json { print(try JSONReport.line(["error": error.message, "kind": error.kind.rawValue, "detail": error.detail])) }
            return 1
        }
    }

    // MARK: - import

    private static func importFiles(_ paths: [String], _ library: PhotoLibrary, batch: Int, json: Bool) throws -> Int32 {
        guard !paths.isEmpty else { throw UsageError("library import needs PATH...") }
        let progress = StderrProgress(label: "library import")
        let report = try blocking {
            try await library.importFiles(paths, reader: EngineMediaReader(), batchSize: batch, progress: progress.report)
        }
        progress.finish()
        for s in report.skipped { FileHandle.standardError.write(Data("shiying: skipped \(s.path): \(s.error)\n".utf8)) }
        try emit(report, json: json) {
            "imported \(report.imported.count) (\(report.photos) photos, \(report.lives) Live, \(report.videos) videos), "
                + "\(report.completedLive) completed Live, \(report.unchanged) unchanged, \(report.duplicates) duplicates, "
                + "\(report.skipped.count) skipped in \(String(format: "%.2f", report.seconds)) s"
        }
        return 0
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
            try c.encode(asset.width, forKey: .width)
            try c.encode(asset.height, forKey: .height)
            try c.encode(asset.durationMs, forKey: .durationMs)
            try c.encode(asset.contentIdentifier, forKey: .contentIdentifier)
            try c.encode(asset.edited, forKey: .edited)
            try c.encode(asset.origin.rawValue, forKey: .origin)
            try c.encode(asset.sourceAssetID, forKey: .sourceAssetID)
            try c.encode(asset.setAside, forKey: .setAside)
            try c.encode(asset.deletedAtMs, forKey: .deletedAtMs)
        }
    }

    private static func list(_ parsed: Arguments, _ library: PhotoLibrary) throws -> Int32 {
        let scopeName = parsed.options["scope"] ?? "library"
        guard let scope = PhotoLibrary.Scope(rawValue: scopeName) else {
            throw UsageError("--scope library|recently-deleted|set-aside|all")
        }
        let album = parsed.options["album"]
        let assets = try blocking { try await library.list(scope, album: album) }
        for asset in assets {
            if parsed.has("json") {
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

    private static func tag(_ parsed: Arguments, _ operands: [String], _ library: PhotoLibrary) throws -> Int32 {
        let ids = try assetIDs(operands)
        let split = { (text: String) in text.split(separator: ",").map(String.init) }
        if let add = parsed.options["add"] {
            try blocking { try await library.addTags(split(add), to: ids) }
        } else if let remove = parsed.options["remove-tags"] {
            try blocking { try await library.removeTags(split(remove), from: ids) }
        } else {
            throw UsageError("library tag ID... --add T,T… (or --remove-tags T,T…)")
        }
        return try show(ids, library, json: parsed.has("json"))
    }

    private static func edit(_ parsed: Arguments, _ operands: [String], _ library: PhotoLibrary) throws -> Int32 {
        guard operands.count == 1, let id = Int64(operands[0]) else { throw UsageError("library edit takes one ID") }
        guard let recipePath = parsed.options["recipe"] else { throw UsageError("--recipe R.json is required") }
        let recipe = try EditCommand.loadRecipe(recipePath)
        let proxy = parsed.options["from"]
        do {
            _ = try blocking { try await LibraryWorkflows.edit(id, recipe: recipe, in: library, renderingFrom: proxy) }
        } catch let error as FullSizeGateError {
            // SPEC E7: not proven full size: nothing written
            FileHandle.standardError.write(Data("shiying: \(error.message)\n".utf8))
            if parsed.has("json") { print(try JSONReport.line(["error": error.message])) }
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
                FileHandle.standardError.write(Data("\(request.freed.text)\n删除 \(request.items.count) 项？它们会在「最近删除」保留 \(request.recentlyDeletedDays) 天。[y/N] ".utf8))
                return (readLine() ?? "").lowercased().hasPrefix("y")
            }
        }
        if !report.confirmed && !confirmed && !interactive {
            FileHandle.standardError.write(Data("shiying: not deleted: confirm with --yes (no terminal to ask)\n".utf8))
        }
        for message in [report.notVisibleMessage, report.refusedMessage].compactMap({ $0 }) {
            FileHandle.standardError.write(Data("shiying: \(message)\n".utf8))
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
