// Everyday English that any reader of a simplification knows: stop words and the most
// common words of general English (about 1050, base forms; guidance.js also matches their
// inflections: "having" is "have", "ages" is "age"). Question guidance (docs/rules.md §4.1,
// givenness) never flags these: the issue-35 walk found "having", "useful" and "ages"
// flagged as concepts the simplification had not given.

export const COMMON_WORDS = new Set(`
a about above across act action actually add after again against age ago agree ahead air
all allow almost alone along already also although always am among amount an and animal
another answer any anyone anything anyway appear area arm around arrive art as ask at
attention available average avoid away baby back bad bag ball bank base basic be bear
beat beautiful because become bed been before began begin behind being believe below
best better between beyond big bit black blue board body book born both bottom box boy
break bring brother brought build building busy but buy by call came can car care
careful carry case catch cause center central certain certainly chance change cheap
check child choice choose church city class clean clear clearly close cold come common
complete completely concern condition consider contain continue cost could count country
couple course cover create cup current cut daily dark data date daughter day dead deal
dear death decide decision deep degree describe detail did die difference different
difficult dinner direction do doctor does dog done door double down draw dream drink
drive drop during each ear early earth easy eat eating edge effort eight either else end
enough enter entire especially even evening event ever every everyone everything exactly
example expect experience explain eye face fact fail fall family far fast father fear
feel feeling feet few field fight figure fill final finally find fine finger finish fire
first fit five floor fly follow food foot for force forget form forward four free friend
from front full fun further future game gave general generally get girl give glad go
goal going gone good got great green ground grow growth guess had hair half hand happen
happy hard has have having he head hear heard heat heavy held help her here herself high
him himself his history hit hold home hope hot hour house how however huge human hundred
husband i idea if important in include including increase indeed information inside
instead interest interesting into is issue it its itself job join just keep kept key kid
kill kind knew know knowledge known lack land language large last late later laugh law
lead learn least leave left leg less let letter level life light like likely line list
listen little live living local long look lose loss lot love low lower made main mainly
major make man many mark matter may maybe me mean meaning measure meet member memory
mention middle might mind minute miss moment money month more morning most mostly mother
move movement much must my myself name natural near nearly necessary need never new news
next nice night nine no nobody none nor normal normally not note nothing notice now
number of off offer office often oh ok okay old on once one only open or order other our
out outside over own page paper parent part particular particularly pass past pay peace
per perhaps period person pick picture piece place plan play please plus point poor
popular position possible possibly power practice prepare present pretty prevent price
probably problem process produce program provide public pull purpose push put quality
question quick quickly quite rather reach read ready real really reason receive recent
recently record red reduce remain remember remove report rest return right rise risk
road rock role room round rule run safe said same save saw say school sea second see
seem seen sell send sense serious serve set seven several shall share she short should
show shown sick side sign similar simple simply since single sister sit situation six
size sleep slow slowly small so social some someone something sometimes son soon sorry
sort sound source space speak special spend stand start state stay step still stop story
strong such sudden suddenly suggest support sure surface system table take talk taken
tell ten term test than thank that the their them themselves then there therefore these
they thing think third this those though thought thousand three through throughout thus
time to today together told too took top total toward towards town tried true try turn
two type under understand unit until up upon us use used useful usual usually value
various very view visit voice wait walk wall want war warm was watch water way we weak
wear week weight well went were what whatever when where whether which while white who
whole whom whose why wide wife will win window wish with within without woman wonder
word work worker world worry would write wrong yeah year yes yet you young your yourself
ability able absent accept according account achieve active actual addition affect
afraid aged ages aim alive amongst anybody apart approach appropriate argue arrange
aspect assume attack attempt aware basis benefit bill breath brief broad capital card
career chair character charge chief citizen collect college colour color community
company compare conference consequence contact content context crime culture customer
damage danger dangerous debate decline deliver demand depend design despite develop
development device diet difficulty discover discuss doubt due duty easily economic
education effective efficient elderly element emerge energy enjoy ensure environment
equal error establish estimate examine exist expensive expert express extra extreme
factor fair famous feature fee female financial focus foreign former frequent fresh
fully function fund gain gender greater habit handle harm hate hide ill image impact
improve income independent indicate individual industry influence instance intend
involve item labour labor lady largely lay league length male manage market mass
material meal mental message method mild minor mix modern mood mouth nature neck
negative nurse obvious occur option ordinary original outcome overall pair partner
patient pattern peak perform physical plain plant pleasure pocket policy positive
pressure previous primary private probable proper property protect prove range rare rate
raise reaction reading reality recover reflect region regular relate relative release
relief rely remind repeat replace request require research resource response responsible
result review rich safety season section secure select senior series shape sharp shot
shoulder sight significant skill slight smoke soft solution solve specific stage
standard stress strength structure student style subject success successful suffer
suitable sum supply survive target task teacher team tend thin thick tiny tired tool
topic touch track trade traditional train treat trouble trust truth twice typical unable
unusual upper urban useless vary version victim weekly welcome whereas wound yearly
`.trim().split(/\s+/));
