import LiteEngine
