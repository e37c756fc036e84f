// SPEC D9 / D10: "Life" (生活) hides what was not taken to remember something,
// from system flags and already-recognized text only — never from pixels,
// never from "no camera data". Unsure → Life. The user can override each one.

/// The user's own decision for one asset.
public enum LifeOverride: String, Sendable, Codable, Hashable {
    /// Put it back in Life.
    case life
    /// Keep it out of Life.
    case notLife = "not_life"
}

/// What the text looks like (from recognized text).
public enum DocumentKind: String, Sendable, Codable, Hashable {
    /// A receipt.
    case receipt
    /// An identity document.
    case identityDocument = "id"
    /// Another document.
    case document
}

/// Why an asset is not in Life (SPEC D10).
public enum LifeReason: Sendable, Codable, Hashable {
    /// A screenshot.
    case screenshot
    /// A screen recording.
    case screenRecording
    /// An animated image.
    case animated
    /// Its recognised text looks like a document of that kind.
    case looksLike(DocumentKind)
    /// The user said so.
    case userMarked

    /// The info-page line (SPEC D10): says what it looks like, never the recognized text.
    public var infoLine: String {
        switch self {
        case .screenshot: return "这是一张截图，所以不在「生活」里"
        case .screenRecording: return "这是一段屏幕录制，所以不在「生活」里"
        case .animated: return "这是一张动图，所以不在「生活」里"
        case .looksLike(.receipt): return "图里的字看起来像票据，所以不在「生活」里"
        case .looksLike(.identityDocument): return "图里的字看起来像证件，所以不在「生活」里"
        case .looksLike(.document): return "图里的字看起来像文件，所以不在「生活」里"
        case .userMarked: return "你把它标成了不属于「生活」"
        }
    }

    /// A short machine name for JSON.
    public var code: String {
        switch self {
        case .screenshot: return "screenshot"
        case .screenRecording: return "screen_recording"
        case .animated: return "animated"
        case .looksLike(let kind): return "text_\(kind.rawValue)"
        case .userMarked: return "user_marked"
        }
    }
}

/// The decision for one asset.
public struct LifeDecision: Sendable, Hashable {
    /// True when the asset belongs in Life.
    public var inLife: Bool
    /// Present only when not in Life (SPEC D10).
    public var reason: LifeReason?
    /// The info line, nil for Life photos (SPEC D10).
    public var infoLine: String? { reason?.infoLine }
    /// The restore action's label, shown beside the info line.
    public var restoreAction: String? { reason == nil ? nil : "放回「生活」" }
}

/// The facts the classifier may use.
public struct LifeFacts: Sendable, Hashable {
    /// A screenshot.
    public var isScreenshot: Bool
    /// A screen recording.
    public var isScreenRecording: Bool
    /// An animated image (GIF, animated HEIC/PNG).
    public var isAnimated: Bool
    /// Marked as a favourite by the user.
    public var isFavorite: Bool
    /// Text recognised in the picture (OCR), if any.
    public var recognizedText: String?

    /// The facts the classifier reads.
    public init(isScreenshot: Bool = false, isScreenRecording: Bool = false, isAnimated: Bool = false,
                isFavorite: Bool = false, recognizedText: String? = nil) {
        self.isScreenshot = isScreenshot
        self.isScreenRecording = isScreenRecording
        self.isAnimated = isAnimated
        self.isFavorite = isFavorite
        self.recognizedText = recognizedText
    }

    /// The facts of a scanned asset.
    public init(_ a: OrganizeAsset) {
        self.init(isScreenshot: a.isScreenshot, isScreenRecording: a.isScreenRecording, isAnimated: a.isAnimated,
                  isFavorite: a.isFavorite, recognizedText: a.recognizedText)
    }
}

/// SPEC D9: whether an asset belongs in Life (camera photos) or elsewhere.
public enum LifeClassifier {
    /// SPEC D9. Order: the user's override; system flags (a favourited
    /// screenshot is still not Life); document-like recognized text; else Life.
    public static func decide(_ facts: LifeFacts, override: LifeOverride? = nil) -> LifeDecision {
        switch override {
        case .life?: return LifeDecision(inLife: true, reason: nil)
        case .notLife?: return LifeDecision(inLife: false, reason: .userMarked)
        case nil: break
        }
        if facts.isScreenshot { return LifeDecision(inLife: false, reason: .screenshot) }
        if facts.isScreenRecording { return LifeDecision(inLife: false, reason: .screenRecording) }
        if facts.isAnimated { return LifeDecision(inLife: false, reason: .animated) }
        if let text = facts.recognizedText, let kind = DocumentText.kind(of: text) {
            return LifeDecision(inLife: false, reason: .looksLike(kind))
        }
        return LifeDecision(inLife: true, reason: nil) // unsure → Life
    }
}

/// Whether recognized text reads like a receipt, an ID or a full page.
/// Conservative on purpose: short or ordinary text (a sign, a caption) is not
/// a document, so the photo stays in Life.
public enum DocumentText {
    static let receiptWords = ["合计", "总计", "小计", "金额", "收据", "发票", "收款", "找零", "实收", "应收", "单价",
                               "合計", "總計", "發票", "total", "subtotal", "tax", "receipt", "change due", "cash",
                               "visa", "amount"]
    static let idWords = ["身份证", "居民身份", "公民身份号码", "护照", "驾驶证", "身分證", "護照", "passport",
                          "identity card", "driver license", "driver's license", "date of birth", "nationality"]

    /// - Returns: the kind, or nil when unsure (stays in Life).
    public static func kind(of text: String) -> DocumentKind? {
        let lower = text.lowercased()
        let idHits = idWords.filter { lower.contains($0) }.count
        if idHits >= 2 || (idHits >= 1 && containsIDNumber(lower)) { return .identityDocument }
        let receiptHits = receiptWords.filter { lower.contains($0) }.count
        let prices = priceCount(lower)
        if receiptHits >= 2 || (receiptHits >= 1 && prices >= 3) { return .receipt }
        let visible = text.unicodeScalars.filter { !$0.properties.isWhitespace }.count
        let lines = text.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }.count
        if visible >= 300 || (lines >= 12 && visible >= 150) { return .document }
        return nil
    }

    /// Tokens like 12.50 or 3,20 (two decimals).
    static func priceCount(_ s: String) -> Int {
        let c = Array(s.unicodeScalars)
        func digit(_ i: Int) -> Bool { i >= 0 && i < c.count && c[i].isASCII && c[i].properties.numericType != nil }
        return c.indices.filter { i in
            (c[i] == "." || c[i] == ",") && digit(i - 1) && digit(i + 1) && digit(i + 2) && !digit(i + 3)
        }.count
    }

    /// An 18-character PRC resident ID number (17 digits + digit or X).
    static func containsIDNumber(_ s: String) -> Bool {
        var run = 0
        for ch in s.unicodeScalars {
            if ch.properties.numericType != nil && ch.isASCII { run += 1 } else if ch == "x" && run == 17 { return true } else { run = 0 }
            if run == 18 { return true }
        }
        return false
    }
}
