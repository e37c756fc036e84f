import Foundation
import Shiying

/// `shiying edit IN --recipe R.json -o OUT [--size WxH] [--quality Q] [--format jpeg|png|heic] [--json]`
/// (issue 5): render a recipe onto a photo and save it with its metadata.
enum EditCommand {
    static let spec = CommandSpec(
        path: ["edit"], summary: "render an edit recipe onto a photo and save it with its metadata (issue 5)",
        operands: [OperandSpec("IN", .one, "the photo", missing: "one input photo")],
        options: [
            .output("OUT", "the edited photo (.jpg, .jpeg, .png, .heic, .heif)", required: true),
            .path("recipe", "R.json", "the edit recipe (docs/recipe-schema.md)", required: true),
            .text("size", "WxH", "fit within W x H pixels (0 = no limit on that side)"),
            .int("quality", "Q", 1...100, "JPEG/HEIC quality", default: 90),
            .choice("format", ["jpeg", "png", "heic"], "output format; must agree with -o's extension",
                    aliases: ["jpg": "jpeg"]),
            .flag("allow-sdr", "consent to dropping an HDR gain map (SPEC E6)"),
            .json,
        ],
        run: { try run($0) })

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        let input = parsed.positionals[0]
        guard let output = parsed.string("output"), let recipePath = parsed.string("recipe") else {
            preconditionFailure("required by the table")
        }
        var format = parsed.string("format").flatMap(Editor.Format.init(rawValue:))
        let implied = try outputFormat(output, command: "edit", formats: stillFormats, chosen: format?.rawValue)
        format = Editor.Format(rawValue: implied)
        let maxSize = try parsed.string("size").map(parseSize)
        let recipe = try loadRecipe(recipePath)
        let progress = ProgressReporter(label: "edit", quietFor: .seconds(1)) // short edits stay quiet
        // SPEC E6: HDR gain maps are kept; SDR only with --allow-sdr.
        let allowSDR = parsed.has("allow-sdr")
        let hdr: HDREditor.Report
        do {
            hdr = try HDREditor.saveBlocking(input, recipe: recipe, to: output, format: format,
                                             quality: parsed.int("quality") ?? 90, maxSize: maxSize,
                                             onHDRLoss: allowSDR ? { _ in true } : nil, progress: progress.report)
        } catch let error as HDRLossError {
            progress.finish()
            throw ShiyingError(code: .cancelled, message: "\(error.description) (use --allow-sdr to save SDR)", file: input)
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        let report = hdr.edit
        if parsed.json {
            print(try reportLine(report, hdr: hdr))
        } else {
            let kept = report.kept.isEmpty ? "no metadata" : report.kept.joined(separator: ", ")
            let hdrText = hdr.hdr == "none" ? "" : ", HDR \(hdr.hdr)" + (hdr.hdrReason.map { " (\($0.rawValue))" } ?? "")
            print("\(output): \(report.format.rawValue) \(report.width)x\(report.height), kept \(kept)\(hdrText)\(droppedText(report.dropped))")
        }
        return 0
    }

    /// `WxH`; 0 leaves that side unlimited.
    static func parseSize(_ text: String) throws -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 0, h >= 0, w <= 65535, h <= 65535,
              w + h > 0 else {
            throw UsageError("--size expects WxH (e.g. 1170x1170; 0 = no limit on that side), got \(text)")
        }
        return (w, h)
    }

    /// Reads and validates the recipe; a relative `cube:` path is taken
    /// relative to the recipe file's folder (docs/recipe-schema.md).
    static func loadRecipe(_ path: String) throws -> EditRecipe {
        var status = stat()
        let kind = stat(path, &status) == 0 ? status.st_mode & S_IFMT : 0
        let why = kind == 0 ? String(cString: strerror(errno)) : kind == S_IFDIR ? "it is a folder"
            : kind == S_IFIFO ? "a pipe, not a file" : kind != S_IFREG ? "a device, not a file" : nil
        if let why { throw ShiyingError(code: .usage, message: "\(path): cannot read the recipe file: \(why)", file: path) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ShiyingError(code: .io, message: "\(path): cannot read the recipe file: \(String(cString: strerror(errno)))",
                               file: path)
        }
        var recipe: EditRecipe
        do {
            recipe = try EditRecipe(jsonData: data)
        } catch let error as EditRecipeError {
            throw ShiyingError(code: .usage, message: "\(path): invalid edit recipe: \(error.message)", file: path)
        }
        let prefix = EditRecipe.cubeFilterPrefix
        if let id = recipe.filter?.id, id.hasPrefix(prefix) {
            let cube = String(id.dropFirst(prefix.count))
            if !cube.isEmpty && !cube.hasPrefix("/") {
                let folder = (path as NSString).deletingLastPathComponent
                recipe.filter?.id = prefix + (folder.isEmpty ? cube : (folder as NSString).appendingPathComponent(cube))
            }
        }
        return recipe
    }

    /// One line of JSON: the report with snake_case keys and the recipe echoed
    /// as a recipe object (its own camelCase keys, so it can be fed back).
    static func reportLine(_ report: Editor.EditReport, hdr: HDREditor.Report? = nil) throws -> String {
        let line = try JSONReport.line(report)
        guard var object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return line }
        object["recipe"] = try JSONSerialization.jsonObject(with: report.recipe.jsonData())
        if let hdr, hdr.hdr != "none" { /* SPEC E6: "kept" | "dropped-with-consent" and why */
            object["hdr"] = hdr.hdr
            object["hdr_reason"] = hdr.hdrReason?.rawValue ?? NSNull()
            object["hdr_hook_calls"] = hdr.hookCalls
            object["gain_map"] = hdr.sourceGainMap
            if let w = hdr.gainMapWidth, let h = hdr.gainMapHeight { object["gain_map_size"] = [w, h] }
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}

/// `shiying filters [--json]`: the built-in filters by family.
enum FiltersCommand {
    static let spec = CommandSpec(
        path: ["filters"], summary: "list the built-in filters by family, and how to name a .cube filter",
        options: [.json], run: { try run($0) })

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        let filters = BuiltInFilter.all
        var families: [String] = []
        for filter in filters where !families.contains(filter.family) { families.append(filter.family) }
        if parsed.json {
            struct Family: Encodable { let id: String; let filters: [BuiltInFilter] }
            struct Listing: Encodable { let families: [Family]; let cubePrefix: String }
            print(try JSONReport.line(Listing(families: families.map { f in Family(id: f, filters: filters.filter { $0.family == f }) },
                                              cubePrefix: EditRecipe.cubeFilterPrefix)))
        } else {
            for family in families {
                print("\(family):")
                for filter in filters where filter.family == family { print("  \(filter.id)  \(filter.name) / \(filter.nameZh)") }
            }
            print("user filters: \"filter\": {\"id\": \"\(EditRecipe.cubeFilterPrefix)<path to .cube>\"}")
        }
        return 0
    }
}
