public enum ConsoleUIPlaceholder {}
