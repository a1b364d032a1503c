"""How things look: glyphs (Unicode or ASCII for the console), the palette from theme
variables, theme files, and the Look passed down to widgets."""
