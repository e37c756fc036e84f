// ShiyingProgress and CancelHook live in ShiyingCore (below ShiyingLibrary
// too); re-exported so `import Shiying` users keep seeing them here.
@_exported import ShiyingCore
