public enum ConsoleCursesPlaceholder {}
