# Turns models/profiles/NAME.json into a C table (models/models.mk runs this).
# The name of each profile is its file name without ".json".
BEGIN {
	print "/* Generated from models/profiles/NAME.json by models/embed.awk. Do not edit. */"
	print "#include \"models/model_int.h\""
	print ""
	print "const struct model_embedded model_embedded_profiles[] = {"
	n = 0
}
FNR == 1 {
	if (n++)
		print "\t},"
	name = FILENAME
	sub(/^.*\//, "", name)
	sub(/\.json$/, "", name)
	print "\t{ \"" name "\","
}
{
	line = $0
	gsub(/\\/, "\\\\", line)
	gsub(/"/, "\\\"", line)
	gsub(/\t/, "\\t", line)
	print "\t  \"" line "\\n\""
}
END {
	if (n)
		print "\t},"
	print "\t{ 0, 0 },"
	print "};"
	print ""
	print "const size_t model_embedded_count = " n ";"
}
