"""The IAB content taxonomy, version 1: tier-1 id, name and the tier-2 names numbered from 1."""

# fmt: off
IAB_TAXONOMY: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("IAB1", "Arts & Entertainment", (
        "Books & Literature", "Celebrity Fan/Gossip", "Fine Art", "Humor", "Movies", "Music", "Television")),
    ("IAB2", "Automotive", (
        "Auto Parts", "Auto Repair", "Buying/Selling Cars", "Car Culture", "Certified Pre-Owned",
        "Convertible",
        "Coupe", "Crossover", "Diesel", "Electric Vehicle", "Hatchback", "Hybrid", "Luxury", "MiniVan",
        "Motorcycles", "Off-Road Vehicles", "Performance Vehicles", "Pickup", "Road-Side Assistance", "Sedan",
        "Trucks & Accessories", "Vintage Cars", "Wagon")),
    ("IAB3", "Business", (
        "Advertising", "Agriculture", "Biotech/Biomedical", "Business Software", "Construction", "Forestry",
        "Government", "Green Solutions", "Human Resources", "Logistics", "Marketing", "Metals")),
    ("IAB4", "Careers", (
        "Career Planning", "College", "Financial Aid", "Job Fairs", "Job Search", "Resume Writing/Advice",
        "Nursing", "Scholarships", "Telecommuting", "U.S. Military", "Career Advice")),
    ("IAB5", "Education", (
        "7-12 Education", "Adult Education", "Art History", "College Administration", "College Life",
        "Distance Learning", "English as a 2nd Language", "Language Learning", "Graduate School",
        "Homeschooling", "Homework/Study Tips", "K-6 Educators", "Private School", "Special Education",
        "Studying Business")),
    ("IAB6", "Family & Parenting", (
        "Adoption", "Babies & Toddlers", "Daycare/Pre School", "Family Internet", "Parenting - K-6 Kids",
        "Parenting teens", "Pregnancy", "Special Needs Kids", "Eldercare")),
    ("IAB7", "Health & Fitness", (
        "Exercise", "A.D.D.", "AIDS/HIV", "Allergies", "Alternative Medicine", "Arthritis", "Asthma",
        "Autism/PDD", "Bipolar Disorder", "Brain Tumor", "Cancer", "Cholesterol", "Chronic Fatigue Syndrome",
        "Chronic Pain", "Cold & Flu", "Deafness", "Dental Care", "Depression", "Dermatology", "Diabetes",
        "Epilepsy", "GERD/Acid Reflux", "Headaches/Migraines", "Heart Disease", "Herbs for Health",
        "Holistic Healing", "IBS/Crohn's Disease", "Incest/Abuse Support", "Incontinence", "Infertility",
        "Men's Health", "Nutrition", "Orthopedics", "Panic/Anxiety Disorders", "Pediatrics",
        "Physical Therapy",
        "Psychology/Psychiatry", "Senior Health", "Sexuality", "Sleep Disorders", "Smoking Cessation",
        "Substance Abuse", "Thyroid Disease", "Weight Loss", "Women's Health")),
    ("IAB8", "Food & Drink", (
        "American Cuisine", "Barbecues & Grilling", "Cajun/Creole", "Chinese Cuisine", "Cocktails/Beer",
        "Coffee/Tea", "Cuisine-Specific", "Desserts & Baking", "Dining Out", "Food Allergies",
        "French Cuisine",
        "Health/Lowfat Cooking", "Italian Cuisine", "Japanese Cuisine", "Mexican Cuisine", "Vegan",
        "Vegetarian",
        "Wine")),
    ("IAB9", "Hobbies & Interests", (
        "Art/Technology", "Arts & Crafts", "Beadwork", "Birdwatching", "Board Games/Puzzles",
        "Candle & Soap Making", "Card Games", "Chess", "Cigars", "Collecting", "Comic Books",
        "Drawing/Sketching", "Freelance Writing", "Genealogy", "Getting Published", "Guitar",
        "Home Recording",
        "Investors & Patents", "Jewelry Making", "Magic & Illusion", "Needlework", "Painting", "Photography",
        "Radio", "Roleplaying Games", "Sci-Fi & Fantasy", "Scrapbooking", "Screenwriting", "Stamps & Coins",
        "Video & Computer Games", "Woodworking")),
    ("IAB10", "Home & Garden", (
        "Appliances", "Entertaining", "Environmental Safety", "Gardening", "Home Repair", "Home Theater",
        "Interior Decorating", "Landscaping", "Remodeling & Construction")),
    ("IAB11", "Law, Gov't & Politics", (
        "Immigration", "Legal Issues", "U.S. Government Resources", "Politics", "Commentary")),
    ("IAB12", "News", ("International News", "National News", "Local News")),
    ("IAB13", "Personal Finance", (
        "Beginning Investing", "Credit/Debt & Loans", "Financial News", "Financial Planning", "Hedge Fund",
        "Insurance", "Investing", "Mutual Funds", "Options", "Retirement Planning", "Stocks",
        "Tax Planning")),
    ("IAB14", "Society", (
        "Dating", "Divorce Support", "Gay Life", "Marriage", "Senior Living", "Teens", "Weddings",
        "Ethnic Specific")),
    ("IAB15", "Science", (
        "Astrology", "Biology", "Chemistry", "Geology", "Paranormal Phenomena", "Physics", "Space/Astronomy",
        "Geography", "Botany", "Weather")),
    ("IAB16", "Pets", (
        "Aquariums", "Birds", "Cats", "Dogs", "Large Animals", "Reptiles", "Veterinary Medicine")),
    ("IAB17", "Sports", (
        "Auto Racing", "Baseball", "Bicycling", "Bodybuilding", "Boxing", "Canoeing/Kayaking", "Cheerleading",
        "Climbing", "Cricket", "Figure Skating", "Fly Fishing", "Football", "Freshwater Fishing",
        "Game & Fish",
        "Golf", "Horse Racing", "Horses", "Hunting/Shooting", "Inline Skating", "Martial Arts",
        "Mountain Biking", "NASCAR Racing", "Olympics", "Paintball", "Power & Motorcycles", "Pro Basketball",
        "Pro Ice Hockey", "Rodeo", "Rugby", "Running/Jogging", "Sailing", "Saltwater Fishing", "Scuba Diving",
        "Skateboarding", "Skiing", "Snowboarding", "Surfing/Bodyboarding", "Swimming",
        "Table Tennis/Ping-Pong", "Tennis", "Volleyball", "Walking", "Waterski/Wakeboard", "World Soccer")),
    ("IAB18", "Style & Fashion", ("Beauty", "Body Art", "Fashion", "Jewelry", "Clothing", "Accessories")),
    ("IAB19", "Technology & Computing", (
        "3-D Graphics", "Animation", "Antivirus Software", "C/C++", "Cameras & Camcorders", "Cell Phones",
        "Computer Certification", "Computer Networking", "Computer Peripherals", "Computer Reviews",
        "Data Centers", "Databases", "Desktop Publishing", "Desktop Video", "Email", "Graphics Software",
        "Home Video/DVD", "Internet Technology", "Java", "JavaScript", "Mac Support", "MP3/MIDI",
        "Net Conferencing", "Net for Beginners", "Network Security", "Palmtops/PDAs", "PC Support",
        "Portable",
        "Entertainment", "Shareware/Freeware", "Unix", "Visual Basic", "Web Clip Art", "Web Design/HTML",
        "Web Search", "Windows")),
    ("IAB20", "Travel", (
        "Adventure Travel", "Africa", "Air Travel", "Australia & New Zealand", "Bed & Breakfasts",
        "Budget Travel", "Business Travel", "By US Locale", "Camping", "Canada", "Caribbean", "Cruises",
        "Eastern Europe", "Europe", "France", "Greece", "Honeymoons/Getaways", "Hotels", "Italy", "Japan",
        "Mexico & Central America", "National Parks", "South America", "Spas", "Theme Parks",
        "Traveling with Kids", "United Kingdom")),
    ("IAB21", "Real Estate", ("Apartments", "Architects", "Buying/Selling Homes")),
    ("IAB22", "Shopping", ("Contests & Freebies", "Couponing", "Comparison", "Engines")),
    ("IAB23", "Religion & Spirituality", (
        "Alternative Religions", "Atheism/Agnosticism", "Buddhism", "Catholicism", "Christianity", "Hinduism",
        "Islam", "Judaism", "Latter-Day Saints", "Pagan/Wiccan")),
    ("IAB24", "Uncategorized", ()),
    ("IAB25", "Non-Standard Content", (
        "Unmoderated UGC", "Extreme Graphic/Explicit Violence", "Pornography", "Profane Content",
        "Hate Content", "Under Construction", "Incentivized")),
    ("IAB26", "Illegal Content", ("Illegal Content", "Warez", "Spyware/Malware", "Copyright Infringement")),
)
# fmt: on
